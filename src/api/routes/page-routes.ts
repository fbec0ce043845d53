import express, { Router, type Response } from 'express';
import type { AccountDeps } from '../../accounts/account-deps.ts';
import { parseLinkToken } from '../../accounts/account-links.ts';
import { verifyEmail } from '../../accounts/email-verification.ts';
import { resetPassword, userForResetLink } from '../../accounts/password-reset.ts';
import { usernameOf } from '../../accounts/user-view.ts';
import { pageHeaders } from '../pages/page-security.ts';
import { renderResetDone } from '../pages/reset-done-page.ts';
import { defaultResetPasswordMinLength, renderResetForm } from '../pages/reset-form-page.ts';
import { renderResetInvalid } from '../pages/reset-invalid-page.ts';
import { renderVerifyResultPage } from '../pages/verify-result-page.ts';
import { appDisplayName } from '../../config/schema.ts';
import type { AppRegistry } from '../../accounts/app-registry.ts';

function sendPage(res: Response, status: number, html: string): void {
  res.status(status).set(pageHeaders).send(html);
}

/**
 * The pages people open from account emails: they carry no app headers, the
 * app comes from the link token itself.
 */
export function pageRoutes(deps: AccountDeps, apps: AppRegistry): Router {
  const router = Router();
  const form = express.urlencoded({ extended: false, limit: 16 * 1024 });

  /** The app and secret a link token names, and the app name its pages show (also for broken links). */
  const resolve = (token: string) => {
    const parsed = parseLinkToken(token);
    const app = parsed ? apps.get(parsed.appId) : undefined;
    const link = parsed && app ? { app, secretHash: parsed.secretHash } : null;
    return { link, appName: app ? appDisplayName(app.config) : 'Herald' };
  };

  router.get('/verifyEmail/:token', async (req, res) => {
    const { link, appName } = resolve(req.params.token);
    const outcome = link ? await verifyEmail(deps, link.app.config.id, link.secretHash) : { ok: false as const };
    if (!link || !outcome.ok) return sendPage(res, 400, renderVerifyResultPage({ ok: false, appName }));
    sendPage(res, 200, renderVerifyResultPage({ ok: true, appName, email: outcome.email }));
  });

  router.get('/resetPassword/:token', async (req, res) => {
    const { link, appName } = resolve(req.params.token);
    const user = link ? await userForResetLink(deps, link.app, link.secretHash) : null;
    if (!link || !user) return sendPage(res, 400, renderResetInvalid({ appName }));
    sendPage(res, 200, renderResetForm({ appName, username: usernameOf(user), actionUrl: req.originalUrl }));
  });

  router.post('/resetPassword/:token', form, async (req, res) => {
    const { link, appName } = resolve(req.params.token);
    const user = link ? await userForResetLink(deps, link.app, link.secretHash) : null;
    if (!link || !user) return sendPage(res, 400, renderResetInvalid({ appName }));
    const fields = (req.body ?? {}) as Record<string, unknown>;
    const password = typeof fields.password === 'string' ? fields.password : '';
    const confirm = typeof fields.confirm === 'string' ? fields.confirm : '';
    const again = (error: string) => sendPage(res, 400, renderResetForm({ appName, username: usernameOf(user), actionUrl: req.originalUrl, error }));
    if (password.length < defaultResetPasswordMinLength) return again(`Use at least ${defaultResetPasswordMinLength} characters.`);
    if (password.length > 1024) return again('The password is too long.');
    if (password !== confirm) return again('The two passwords do not match.');
    if (!(await resetPassword(deps, link.app, link.secretHash, password))) return sendPage(res, 400, renderResetInvalid({ appName }));
    sendPage(res, 200, renderResetDone({ appName }));
  });
  return router;
}
