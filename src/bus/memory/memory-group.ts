import type { TopicPartitions } from '../../core/ports/bus.ts';
import type { MemoryTopic, TopicReader } from './memory-topic.ts';

/** A subscription as its group sees it. */
export interface GroupMember {
  readonly topics: readonly string[];
  /** Starts consuming these partitions. */
  assign(assignment: TopicPartitions[]): void;
  /** Stops consuming; resolves once in-flight handlers have settled and their offsets are committed. */
  revoke(): Promise<void>;
}

/**
 * A consumer group of the in-process bus: its members, the split of partitions
 * among them, and its committed offsets.
 *
 * Membership changes rebalance the way Kafka's eager protocol does: every member
 * gives up every partition, draining its in-flight handlers, before anyone gets
 * the new assignment. So a partition never has two owners, and the next owner
 * starts exactly after what the last one committed.
 */
export class MemoryGroup implements TopicReader {
  readonly id: string;
  readonly #topic: (name: string) => MemoryTopic;
  readonly #members: GroupMember[] = [];
  /** Next offset to deliver, per `topic/partition`. */
  readonly #committed = new Map<string, number>();
  #changes: Promise<void> = Promise.resolve();

  constructor(id: string, topic: (name: string) => MemoryTopic) {
    this.id = id;
    this.#topic = topic;
  }

  /** Adds `member`; resolves once the group has rebalanced with it. */
  join(member: GroupMember): Promise<void> {
    for (const name of member.topics) this.#topic(name).addReader(this);
    return this.#rebalance(() => this.#members.push(member));
  }

  /** Drains and removes `member`; its partitions go to the others. */
  leave(member: GroupMember): Promise<void> {
    return this.#rebalance(() => {
      const index = this.#members.indexOf(member);
      if (index !== -1) this.#members.splice(index, 1);
    });
  }

  committedOffset(topic: string, partition: number): number | undefined {
    return this.#committed.get(`${topic}/${partition}`);
  }

  /** Where the owner of a partition reads next: after the last commit, or the oldest message kept. */
  position(topic: MemoryTopic, partition: number): number {
    return Math.max(this.committedOffset(topic.name, partition) ?? 0, topic.log(partition).startOffset);
  }

  commit(topic: MemoryTopic, partition: number, nextOffset: number): void {
    this.#committed.set(`${topic.name}/${partition}`, nextOffset);
    topic.release(partition);
  }

  #rebalance(change: () => void): Promise<void> {
    const run = this.#changes.then(async () => {
      await Promise.all(this.#members.map((member) => member.revoke()));
      change();
      this.#assign();
    });
    // One rebalance at a time; a failed one must not block the next.
    this.#changes = run.catch(() => undefined);
    return run;
  }

  /** Round-robin over the members reading each topic, in join order. */
  #assign(): void {
    const assignments = new Map<GroupMember, TopicPartitions[]>(this.#members.map((member) => [member, []]));
    const topics = [...new Set(this.#members.flatMap((member) => member.topics))].sort();
    let turn = 0;
    for (const name of topics) {
      const readers = this.#members.filter((member) => member.topics.includes(name));
      for (let partition = 0; partition < this.#topic(name).partitions.length; partition += 1) {
        const owner = assignments.get(readers[turn % readers.length]!)!;
        turn += 1;
        const entry = owner.find((candidate) => candidate.topic === name);
        if (entry === undefined) owner.push({ topic: name, partitions: [partition] });
        else entry.partitions.push(partition);
      }
    }
    for (const [member, assignment] of assignments) member.assign(assignment);
  }
}
