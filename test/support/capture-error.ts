/** Runs `run` and answers what it threw; fails the test when it throws nothing. */
export function captureError(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  throw new Error('expected an error');
}
