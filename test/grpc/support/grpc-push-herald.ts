import { startPushHerald, type PushHerald } from '../../push/support/push-herald.ts';
import { PushClient } from './grpc-clients.ts';

/** A push herald (fake gateways, manual clock) with a gRPC client on its port, closed together. */
export interface GrpcPushHerald {
  p: PushHerald;
  client: PushClient;
  close(): Promise<void>;
}

export async function startGrpcPushHerald(): Promise<GrpcPushHerald> {
  const p = await startPushHerald();
  const client = new PushClient(p.h.grpcPort as number, p.h.app);
  return {
    p,
    client,
    close: async () => {
      client.close();
      await p.close();
    },
  };
}
