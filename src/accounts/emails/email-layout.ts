import { html, type SafeHtml } from './html.ts';

/** The rendered parts of one account email. */
export interface AccountEmail {
  subject: string;
  text: string;
  html: string;
}

/**
 * Wraps an email body in a minimal document. Styles are inline attributes
 * because many mail clients drop `<style>` blocks.
 */
export function emailLayout(title: string, body: SafeHtml): string {
  return html`<!doctype html>
<html>
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
</head>
<body style="margin:0;padding:24px;background:#f4f5f7;font-family:-apple-system,'Segoe UI',Roboto,Helvetica,Arial,sans-serif;color:#1f2328;line-height:1.5">
<div style="max-width:560px;margin:0 auto;background:#ffffff;border-radius:8px;padding:24px">
${body}
</div>
</body>
</html>
`.value;
}

/** A call-to-action link styled as a button. */
export function emailButton(href: string, label: string): SafeHtml {
  return html`<p style="margin:24px 0"><a href="${href}" style="display:inline-block;padding:10px 18px;background:#0b5fff;color:#ffffff;text-decoration:none;border-radius:6px">${label}</a></p>`;
}

/** Header values must stay on one line. */
export function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}
