import { describeInstallationsApi } from './installations-suite.ts';

describeInstallationsApi({ name: 'the embedded store (SQLite)', options: () => Promise.resolve({}), cleanup: () => Promise.resolve() });
