// Whether a POST body is the RFC 8058 one-click request. Mailbox providers send it as
// application/x-www-form-urlencoded or multipart/form-data (RFC 8058 §3.2); our own confirmation
// page posts the urlencoded form.

/** True when the body holds the field List-Unsubscribe with the value One-Click. */
export function isOneClickRequest(contentType: string | undefined, body: string): boolean {
  const type = (contentType ?? "").split(";")[0].trim().toLowerCase();
  if (type === "application/x-www-form-urlencoded") {
    return new URLSearchParams(body).getAll("List-Unsubscribe").includes("One-Click");
  }
  if (type === "multipart/form-data") {
    const boundary = /boundary="?([^";]+)"?/i.exec(contentType ?? "")?.[1];
    if (!boundary) return false;
    return body.split(`--${boundary}`).some((part) => {
      const split = part.search(/\r?\n\r?\n/);
      if (split < 0) return false;
      const head = part.slice(0, split);
      const value = part.slice(split).replace(/^\r?\n\r?\n/, "").replace(/\r?\n$/, "");
      return /content-disposition:\s*form-data;[^\n]*\bname="?List-Unsubscribe"?(\s*;|\s*$)/im.test(head) && value === "One-Click";
    });
  }
  return false;
}
