// Where the recipient-side pages live on the public URL: short, since they sit in every tracked
// link, and outside /v1 because they are answered without an API key.
export const engagementPaths = {
  open: (token: string) => `/mail/o/${token}`,
  click: (token: string) => `/mail/c/${token}`,
  unsubscribe: (token: string) => `/mail/u/${token}`,
};
