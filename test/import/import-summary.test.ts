import { describe, expect, it } from 'vitest';
import type { ImportSummary } from '../../src/import/import-run.ts';
import { exitCodeOf, formatSummary } from '../../src/import/import-summary.ts';
import { renderProgress } from '../../src/import/progress-bar.ts';

function summary(overrides: Partial<ImportSummary> = {}): ImportSummary {
  return {
    status: 'done',
    dryRun: false,
    tally: {
      _User: { read: 1200, imported: 1000, present: 150, rejected: 50 },
      _Installation: { read: 30, imported: 30, present: 0, rejected: 0 },
    },
    rowsThisRun: 1230,
    seconds: 2,
    skippedFiles: [{ file: 'export/_Role.0.jsonl', className: '_Role', reason: 'Herald has no roles yet' }],
    fileProblems: [],
    resumedFiles: [],
    rejectsPath: '/data/rejects.jsonl',
    statePath: null,
    sampleRejects: [],
    ...overrides,
  };
}

describe('the summary of an import', () => {
  it('tabulates each class and the total, the rate, skipped files and where the rejects are', () => {
    expect(formatSummary(summary())).toBe(
      [
        'Import finished.',
        '',
        'class           read  imported  already present  rejected',
        '_User          1,200     1,000              150        50',
        '_Installation     30        30                0         0',
        'total          1,230     1,030              150        50',
        '',
        '1,230 rows in 2.0 s this run: 615 rows/s.',
        'Skipped export/_Role.0.jsonl (_Role): Herald has no roles yet.',
        'Rejected rows, with the reason for each: /data/rejects.jsonl',
        '',
      ].join('\n'),
    );
  });

  it('says how to resume an interrupted import, and what a dry run would do', () => {
    expect(formatSummary(summary({ status: 'interrupted', statePath: '/data/state.json' }))).toContain(
      'Checkpoint kept in /data/state.json: run the same command again to go on from there.',
    );
    const dry = formatSummary(
      summary({ dryRun: true, rejectsPath: null, sampleRejects: [{ file: 'u.jsonl', line: 7, class: '_User', objectId: 'abc', code: 202, reason: 'Username has already been taken.', row: {} }] }),
    );
    expect(dry).toMatch(/^Dry run: nothing was written\.\n/);
    expect(dry).toContain('class           read  would import  already present  rejected');
    expect(dry).toContain('  u.jsonl:7 abc: 202 Username has already been taken.\n  … and 49 more.');
  });

  it('exits 0 when all went in, 3 with rejects, 130 interrupted, 1 failed', () => {
    const clean = { _User: { read: 2, imported: 1, present: 1, rejected: 0 } };
    expect(exitCodeOf(summary({ tally: clean }))).toBe(0);
    expect(exitCodeOf(summary())).toBe(3);
    expect(exitCodeOf(summary({ status: 'interrupted' }))).toBe(130);
    expect(exitCodeOf(summary({ status: 'failed', error: 'Cassandra is unavailable; retry later' }))).toBe(1);
  });
});

describe('the progress bar', () => {
  it('shows the share read, the rows, the rate, the time left and the file', () => {
    const line = renderProgress({ file: 'export/_User.0.jsonl', totalBytes: 1000, readBytes: 250, rowsThisRun: 5000, startedAt: 0 }, 10_000, 200);
    expect(line).toBe('[#######·····················]  25%  5,000 rows  500 rows/s  0:30 left  _User.0.jsonl');
  });

  it('fits the terminal', () => {
    const line = renderProgress({ file: 'f', totalBytes: 10, readBytes: 10, rowsThisRun: 1, startedAt: 0 }, 1000, 40);
    expect(line.length).toBe(39);
  });
});
