import type { RequestHandler, Router } from 'express';

/**
 * Registers one handler under several paths, each as a route of its own, so
 * that request metrics label a request by the template it came through.
 */
export function routeEach(router: Router, method: 'get' | 'post' | 'put' | 'delete', paths: readonly string[], handler: RequestHandler): void {
  for (const path of paths) router[method](path, handler);
}
