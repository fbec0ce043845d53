import { html, type SafeHtml } from '../../accounts/emails/html.ts';
import { consolePath } from '../console-paths.ts';
import { csrfField } from './layout.ts';

/** The sign-in form; `csrf` is the token of the sign-in cookie, `next` where to go after. */
export function renderSignIn({ csrf, next, username }: { csrf: string; next: string; username: string }): SafeHtml {
  return html`<div class="panel sign-in">
<form class="stack" method="post" action="${consolePath('/sign-in')}">
${csrfField(csrf)}
<input type="hidden" name="next" value="${next}">
<div class="field"><label for="username">Username</label>
<input id="username" name="username" autocomplete="username" required maxlength="64" value="${username}" autofocus></div>
<div class="field"><label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required maxlength="1024"></div>
<button type="submit">Sign in</button>
</form>
<p class="hint">Console accounts are set in Herald's configuration (<code>herald console-user</code>).</p>
</div>`;
}
