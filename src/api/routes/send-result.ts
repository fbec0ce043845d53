import type { Response } from 'express';
import type { AccountResult } from '../../accounts/account-deps.ts';

export function sendResult(res: Response, result: AccountResult): void {
  if (result.location) res.location(result.location);
  res.status(result.status).json(result.body);
}
