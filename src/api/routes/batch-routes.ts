import { Router } from 'express';
import { readBatchBody } from '../batch/batch-body.ts';
import { createBatchDispatcher, type BatchAnswer, type BatchDispatcherDeps } from '../batch/batch-dispatcher.ts';

/**
 * POST /1.1/batch, as the hosted service's SDKs use it (`saveAll`,
 * `fetchAll`, `destroyAll`, queries too long for a URL):
 * `{"requests": [{"method", "path", "body"?, "params"?}, ...]}` answers an
 * array with one entry per request, in order: `{"success": <the answer's
 * body>}` or `{"error": {"code", "error"}}`.
 *
 * - Each request runs on its own, one after the other, through the same
 *   routers as a direct request with the outer request's credentials. A batch
 *   is not a transaction: a failed request leaves the ones before it done and
 *   the ones after it run.
 * - At most `maxBatchRequests` (50) requests; a body of another shape is 107.
 * - Only reads and writes of users and installations may be batched
 *   (`batchTarget`); any other path, including another batch, is an error
 *   entry for that request, not a failure of the batch.
 * - The body limit of every request applies to the batch as a whole.
 *
 * See docs/batch.md.
 */
export function batchRoutes(deps: BatchDispatcherDeps): Router {
  const dispatch = createBatchDispatcher(deps);
  const router = Router();
  router.post('/batch', async (req, res) => {
    const planned = readBatchBody(req.body);
    const answers: BatchAnswer[] = [];
    for (const request of planned) answers.push(await dispatch(req, res, request));
    res.status(200).json(answers);
  });
  return router;
}
