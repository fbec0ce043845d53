import { html, type SafeHtml } from '../../accounts/emails/html.ts';
import { appPath, csrfField, facts, table } from './layout.ts';

type Json = Readonly<Record<string, unknown>>;

export const userSearches = { username: 'Username', email: 'Email', phone: 'Mobile phone number' } as const;
export type UserSearch = keyof typeof userSearches;

function verified(value: unknown): string {
  return value === true ? 'verified' : value === false ? 'not verified' : 'not required';
}

/** The user search form and what it found. */
export function renderUserSearch(appId: string, by: UserSearch, q: string, found: Json[] | null): SafeHtml {
  return html`<form class="inline" method="get" action="${appPath(appId, '/users')}" role="search">
<div class="field"><label for="by">Find by</label><select id="by" name="by">${Object.entries(userSearches).map(([value, label]) => html`<option value="${value}"${value === by ? html` selected` : null}>${label}</option>`)}</select></div>
<div class="field"><label for="q">Value</label><input id="q" name="q" value="${q}" required maxlength="256"></div>
<button type="submit">Find</button>
</form>
${
  found === null
    ? html`<p class="hint">Find a user by the exact username, email address or mobile phone number.</p>`
    : table(
        'Users found',
        ['User', 'Username', 'Email', 'Mobile phone', 'Created (UTC)'],
        found.map(
          (user) =>
            html`<tr><td><a href="${appPath(appId, `/users/${String(user.objectId)}`)}"><code>${String(user.objectId)}</code></a></td><td>${typeof user.username === 'string' ? user.username : '–'}</td><td>${typeof user.email === 'string' ? user.email : '–'}</td><td>${typeof user.mobilePhoneNumber === 'string' ? user.mobilePhoneNumber : '–'}</td><td>${String(user.createdAt)}</td></tr>`,
        ),
        { empty: 'No user found.' },
      )
}`;
}

export interface UserPageParts {
  appId: string;
  user: Json;
  lockedUntil: number | null;
  csrf: string;
  mayUnlock: boolean;
  mayMail: boolean;
}

/** One user: identifiers, verification, lock state, and what an operator may do about them. */
export function renderUserPage({ appId, user, lockedUntil, csrf, mayUnlock, mayMail }: UserPageParts): SafeHtml {
  const id = String(user.objectId);
  const hasEmail = typeof user.email === 'string';
  const action = (path: string, label: string, danger = false) =>
    html`<form method="post" action="${appPath(appId, `/users/${id}/${path}`)}">${csrfField(csrf)}<button type="submit"${danger ? html` class="danger"` : html` class="secondary"`}>${label}</button></form>`;
  const platforms = user.authData !== null && typeof user.authData === 'object' ? Object.keys(user.authData) : [];
  return html`${facts([
    ['User', html`<code>${id}</code>`],
    ['Username', typeof user.username === 'string' ? user.username : '–'],
    ['Email', hasEmail ? html`${String(user.email)} (${verified(user.emailVerified)})` : '–'],
    ['Mobile phone', typeof user.mobilePhoneNumber === 'string' ? html`${user.mobilePhoneNumber} (${verified(user.mobilePhoneVerified)})` : '–'],
    ['Third-party logins', platforms.join(', ') || '–'],
    ['Created (UTC)', String(user.createdAt)],
    ['Updated (UTC)', String(user.updatedAt)],
    ['Login lock', lockedUntil === null ? html`<span class="ok">not locked</span>` : html`<span class="bad">locked until ${new Date(lockedUntil).toISOString()}</span>`],
  ])}
<p><a href="${appPath(appId, `/devices?by=user&q=${encodeURIComponent(id)}`)}">This user's devices</a></p>
${
  mayUnlock || mayMail
    ? html`<h2>Actions</h2><div class="actions">
${mayUnlock && lockedUntil !== null ? action('unlock', 'Unlock', true) : null}
${mayMail && hasEmail ? action('reset-mail', 'Send a password reset mail') : null}
${mayMail && hasEmail ? action('verify-mail', 'Send a verification mail') : null}
</div>${hasEmail ? null : html`<p class="hint">Without an email address, no mail can be sent.</p>`}`
    : null
}`;
}
