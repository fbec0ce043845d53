import cors from 'cors';
import { Router } from 'express';
import { buildOpenApiDocument } from '../openapi/openapi-document.ts';

/**
 * `GET /1.1/openapi.json`: the OpenAPI 3.1 document of Herald's REST
 * interface, with no key, from any origin (API tools and browsers read it).
 * Built once, when the router is.
 */
export function openApiRoutes(): Router {
  const body = JSON.stringify(buildOpenApiDocument());
  const router = Router();
  router.get('/openapi.json', cors(), (_req, res) => {
    res.type('application/json').send(body);
  });
  return router;
}
