import express, { Router, type Response } from 'express';
import type { AppRuntime } from '../../accounts/account-deps.ts';
import { ErrorCode, HeraldError } from '../../core/errors.ts';
import { readDevicePush, readQueryPush, type PushRequest } from '../../push/requests/push-request.ts';
import { submitPush } from '../../push/submit/submit-push.ts';
import { countAudience } from '../compose/audience-count.ts';
import { composePush, emptyComposeForm, readComposeForm, type ComposedPush, type ComposeForm } from '../compose/compose-form.ts';
import { previewPayloads } from '../compose/payload-preview.ts';
import { findInstallation } from '../insight/find-installation.ts';
import { renderCompose, type ComposeParts } from '../views/compose-page.ts';
import { appPath } from '../views/layout.ts';
import { allowChange, allowRead, appOf, audit, consoleCaller, sendPage, signedInOf, wantsJson, type ConsoleContext } from './console-context.ts';

const dayMs = 24 * 60 * 60 * 1000;

/**
 * Compose: preview what Herald will send (the sender's payload builders),
 * count the audience (a dry run), send to one test device, send. Every
 * step reads the form into the very body the REST API takes and hands it
 * to the push rules (`readQueryPush`/`readDevicePush`, `submitPush`).
 */
export function composeRoutes(ctx: ConsoleContext): Router {
  const router = Router({ mergeParams: true });
  const form = express.urlencoded({ extended: false, limit: 256 * 1024, parameterLimit: 40 });
  const { push } = ctx.deps;

  const show = (res: Response, status: number, parts: Omit<ComposeParts, 'appId' | 'csrf'>, error?: string, notice?: string) => {
    const app = appOf(res);
    const { session } = signedInOf(res);
    sendPage(res, status, { title: 'Compose', section: 'compose', error, notice, body: renderCompose({ appId: app.config.id, csrf: session.csrf, ...parts }) });
  };

  router.get('/compose', allowRead('send'), (_req, res) => show(res, 200, { form: { ...emptyComposeForm } }));

  router.post('/compose', form, allowChange(ctx, 'send', 'push.compose'), async (req, res) => {
    const app = appOf(res);
    const { account } = signedInOf(res);
    const body = (req.body ?? {}) as Record<string, unknown>;
    const values = readComposeForm(body);
    const action = typeof body.action === 'string' ? body.action : 'preview';
    let composed: ComposedPush;
    let request: PushRequest;
    const now = push.clock.now();
    try {
      composed = composePush(values);
      request = readPush(composed, now);
    } catch (error) {
      if (!(error instanceof HeraldError)) throw error;
      // The script's live preview shows the problem in place of the payloads: an answer, not a failed request.
      if (wantsJson(req)) return void res.status(action === 'preview' ? 200 : 400).json({ ...error.toBody(), apns: null, fcm: null, makers: [], notes: [] });
      return show(res, 400, { form: values }, error.message);
    }
    if (action === 'preview') {
      const preview = previewPayloads(request, app.config, now);
      if (wantsJson(req)) return void res.json(preview);
      return show(res, 200, { form: values, preview });
    }
    if (action === 'audience') {
      const audience = await countAudience(push.store.installations, app.config.id, request, now - push.settings.idleInstallationDays * dayMs);
      return show(res, 200, { form: values, audience, preview: previewPayloads(request, app.config, now) });
    }
    if (action === 'test') {
      const test = await testPush(app, values, composed);
      if (typeof test === 'string') return show(res, 400, { form: values }, test);
      const result = await submitPush(push, consoleCaller(app), { target: 'devices', body: test, bodyBytes: byteLength(test), prodHeader: undefined });
      await audit(ctx, { actor: account.username, action: 'push.test-send', app: app.config.id, target: result.answer.objectId, detail: `to ${values.testDevice.trim().slice(0, 200)}` });
      return res.redirect(303, appPath(app.config.id, `/pushes/${result.answer.objectId}?notice=test-sent`));
    }
    if (action !== 'send') throw new HeraldError(ErrorCode.internal, 'Unknown action.');
    const result = await submitPush(push, consoleCaller(app), { target: composed.target, body: composed.body, bodyBytes: byteLength(composed.body), prodHeader: undefined });
    const scheduled = request.pushTime !== null;
    await audit(ctx, { actor: account.username, action: scheduled ? 'push.schedule' : 'push.send', app: app.config.id, target: result.answer.objectId, detail: describe(composed) });
    res.redirect(303, appPath(app.config.id, `/pushes/${result.answer.objectId}?notice=${scheduled ? 'scheduled' : 'sent'}`));
  });

  /** The composed push, to the test device alone (`/push/devices`, at once); a sentence when the device is not found. */
  const testPush = async (app: AppRuntime, values: ComposeForm, composed: ComposedPush): Promise<Record<string, unknown> | string> => {
    if (values.testDevice.trim() === '') return 'Name the test device: a device token, installationId or installation objectId.';
    const installation = await findInstallation(push.store.installations, app.config.id, values.testDevice);
    if (installation === null) return 'No installation of this app has that device token, installationId or objectId.';
    const type = installation.deviceType;
    const id = type === 'ios' ? installation.deviceToken : installation.installationId;
    if ((type !== 'ios' && type !== 'android') || typeof id !== 'string') return 'That installation has no device token or installationId to send to.';
    const { data, prod, expiration_interval } = composed.body;
    const body: Record<string, unknown> = { device_type: type, device_ids: [id], data, prod };
    if (expiration_interval !== undefined) body.expiration_interval = expiration_interval;
    if (composed.body._notificationChannel !== undefined) body.channel = composed.body._notificationChannel;
    return body;
  };
  return router;
}

function readPush(composed: ComposedPush, now: number): PushRequest {
  const context = { now, prodHeader: undefined };
  return composed.target === 'query' ? readQueryPush(composed.body, context) : readDevicePush(composed.body, context);
}

function byteLength(body: unknown): number {
  return Buffer.byteLength(JSON.stringify(body));
}

/** The audience of a push in a few words, for the audit log. */
function describe(composed: ComposedPush): string {
  const { body } = composed;
  if (composed.target === 'devices') return `${(body.device_ids as unknown[]).length} ${String(body.device_type)} devices`;
  if (Array.isArray(body.channels)) return `channels ${body.channels.join(', ')}`.slice(0, 300);
  return body.where === undefined ? 'every device' : `where ${JSON.stringify(body.where)}`.slice(0, 300);
}
