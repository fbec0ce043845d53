/** expect.poll options for an unregistered token's installation, which goes once its slice is recorded, a moment after the push record reads done. */
export const installationRemoval = { timeout: 10_000, message: 'the installation removed' };
