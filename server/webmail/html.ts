// Minimal server-rendered HTML for the webmail: no scripts, so a strict CSP holds.

export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);
}

export function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(title)}</title>
<style>body{font:15px/1.4 system-ui,sans-serif;margin:0}header{display:flex;justify-content:space-between;align-items:center;padding:.6em 1em;background:#1d3557;color:#fff}
main{padding:1em}table{border-collapse:collapse;width:100%}td,th{text-align:left;padding:.4em;border-bottom:1px solid #ddd}button{cursor:pointer}
.quarantine-tag{color:#9b1c1c;font-size:.85em;margin-left:.4em}#quarantine-warning{background:#fde8e8;border:1px solid #9b1c1c;color:#9b1c1c;padding:.6em}</style>
</head>
<body>${body}</body>
</html>
`;
}
