import { setTimeout as sleep } from 'node:timers/promises';
import { AssignerProtocol, Kafka, logLevel, type Admin } from 'kafkajs';
import { pushTopics, type PushTopics } from '../../src/push/push-topics.ts';

/** Messages on Herald's two topics and how far each consumer group has committed, summed over partitions. */
export interface KafkaOffsets {
  requests: number;
  tasks: number;
  fanoutCommitted: number;
  senderCommitted: number;
}

/** What one broadcast did on Kafka. */
export interface KafkaPassage {
  /** Messages the broadcast put on push.requests (the api's) and push.tasks (the fan-out's and the senders' continuations). */
  requestMessages: number;
  taskMessages: number;
  /** The partitions each sender member owned during the broadcast. */
  senderPartitions: number[][];
}

/**
 * Watches a distributed run from Kafka's side, with an admin client of its
 * own: that the fan-out and sender groups have settled before the broadcast,
 * and afterwards that the broadcast went the whole way — one message on
 * push.requests, tasks on push.tasks, and both groups committed to the end of
 * their topic.
 */
export class KafkaPath {
  readonly #admin: Admin;
  readonly #topics: PushTopics;
  readonly #groups: { fanout: string; sender: string };
  #before: KafkaOffsets | undefined;
  #senderPartitions: number[][] = [];

  static async open(bus: { brokers: readonly string[]; topicPrefix: string }): Promise<KafkaPath> {
    const admin = new Kafka({ clientId: 'herald-bench', brokers: [...bus.brokers], logLevel: logLevel.NOTHING }).admin();
    await admin.connect();
    return new KafkaPath(admin, bus.topicPrefix);
  }

  private constructor(admin: Admin, topicPrefix: string) {
    this.#admin = admin;
    this.#topics = pushTopics(topicPrefix);
    // The group names the fan-out and sender roles join.
    this.#groups = { fanout: `${topicPrefix}herald-fanout`, sender: `${topicPrefix}herald-sender` };
  }

  /**
   * Waits until the fan-out group is one stable member owning every
   * push.requests partition and the sender group is `senders` stable members
   * sharing every push.tasks partition, each owning some; then notes the
   * offsets. A broadcast sent earlier would meet a rebalance and be partly
   * sent twice.
   */
  async beforeBroadcast(senders: number, timeoutMs = 120_000): Promise<void> {
    const [requestPartitions, taskPartitions] = await Promise.all([this.#partitionCount(this.#topics.requests), this.#partitionCount(this.#topics.tasks)]);
    const giveUpAt = performance.now() + timeoutMs;
    for (;;) {
      const [fanout, sender] = await Promise.all([this.#assignments(this.#groups.fanout, this.#topics.requests), this.#assignments(this.#groups.sender, this.#topics.tasks)]);
      if (covers(fanout, 1, requestPartitions) && covers(sender, senders, taskPartitions)) {
        this.#senderPartitions = sender.members;
        break;
      }
      if (performance.now() > giveUpAt) {
        throw new Error(
          `the consumer groups did not settle within ${timeoutMs / 1000} s (want 1 fan-out member over ${requestPartitions} partitions, ${senders} senders over ${taskPartitions}); ` +
            `last seen: fan-out group ${JSON.stringify(fanout)}, sender group ${JSON.stringify(sender)}`,
        );
      }
      await sleep(250);
    }
    this.#before = await this.offsets();
  }

  /**
   * After the push record read `done`: waits until both groups have committed
   * every message (a sender commits a slice after its counters are written),
   * then checks that exactly one request and some tasks went through Kafka.
   */
  async afterBroadcast(timeoutMs = 60_000): Promise<KafkaPassage> {
    const before = this.#before;
    if (before === undefined) throw new Error('KafkaPath.afterBroadcast without beforeBroadcast');
    const giveUpAt = performance.now() + timeoutMs;
    let after = await this.offsets();
    while (after.fanoutCommitted < after.requests || after.senderCommitted < after.tasks) {
      if (performance.now() > giveUpAt) throw new Error(`Kafka: the groups did not commit every message within ${timeoutMs / 1000} s: ${JSON.stringify(after)}`);
      await sleep(250);
      after = await this.offsets();
    }
    const passage = { requestMessages: after.requests - before.requests, taskMessages: after.tasks - before.tasks, senderPartitions: this.#senderPartitions };
    if (passage.requestMessages !== 1) throw new Error(`Kafka: the broadcast put ${passage.requestMessages} messages on ${this.#topics.requests}, not 1`);
    if (passage.taskMessages < 1) throw new Error(`Kafka: the broadcast put no task on ${this.#topics.tasks}: it did not go through the fan-out`);
    return passage;
  }

  async offsets(): Promise<KafkaOffsets> {
    const [requests, tasks, fanoutCommitted, senderCommitted] = await Promise.all([
      this.#end(this.#topics.requests),
      this.#end(this.#topics.tasks),
      this.#committed(this.#groups.fanout, this.#topics.requests),
      this.#committed(this.#groups.sender, this.#topics.tasks),
    ]);
    return { requests, tasks, fanoutCommitted, senderCommitted };
  }

  async close(): Promise<void> {
    await this.#admin.disconnect();
  }

  async #partitionCount(topic: string): Promise<number> {
    return (await this.#admin.fetchTopicOffsets(topic)).length;
  }

  async #end(topic: string): Promise<number> {
    return (await this.#admin.fetchTopicOffsets(topic)).reduce((sum, partition) => sum + Number(partition.high), 0);
  }

  async #committed(groupId: string, topic: string): Promise<number> {
    const [offsets] = await this.#admin.fetchOffsets({ groupId, topics: [topic] });
    // -1: nothing committed yet on that partition, so nothing consumed from it.
    return (offsets?.partitions ?? []).reduce((sum, partition) => sum + Math.max(0, Number(partition.offset)), 0);
  }

  /** The group's state and, for each member, the partitions of `topic` it owns. */
  async #assignments(groupId: string, topic: string): Promise<{ state: string; members: number[][] }> {
    const { groups } = await this.#admin.describeGroups([groupId]);
    const group = groups[0];
    if (group === undefined) return { state: 'Unknown', members: [] };
    const members = group.members.map((member) => {
      if (member.memberAssignment.length === 0) return [];
      const decoded = AssignerProtocol.MemberAssignment.decode(member.memberAssignment);
      return [...(decoded?.assignment[topic] ?? [])].sort((a, b) => a - b);
    });
    return { state: group.state, members };
  }
}

/** A stable group of exactly `members` members, each owning some partition, together owning each of `partitions` once. */
function covers(group: { state: string; members: number[][] }, members: number, partitions: number): boolean {
  if (group.state !== 'Stable' || group.members.length !== members || group.members.some((owned) => owned.length === 0)) return false;
  const owned = group.members.flat().sort((a, b) => a - b);
  return owned.length === partitions && owned.every((partition, index) => partition === index);
}
