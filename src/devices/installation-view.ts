import type { AppConfig } from '../config/schema.ts';
import type { StoredObject } from '../core/ports/object-store.ts';
import { installationClass } from './installation-fields.ts';
import { withoutStrayUser } from './user-pointers.ts';

export interface InstallationViewOptions {
  master: boolean;
  /** The app's protected fields of `_Installation`, shown only to the master key. */
  protectedFields: readonly string[];
}

/**
 * An installation as a client may see it: every stored field with objectId,
 * createdAt and updatedAt, except reserved `_` fields, a `user` that is not
 * a single Pointer to `_User` (stored before that rule) and, for ordinary
 * keys, the app's protected fields.
 */
export function viewInstallation(installation: Readonly<StoredObject>, options: InstallationViewOptions): Record<string, unknown> {
  const view: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(withoutStrayUser(installation))) {
    if (field.startsWith('_')) continue;
    if (!options.master && options.protectedFields.includes(field)) continue;
    view[field] = value;
  }
  return view;
}

/** The fields of `_Installation` the app protects (settings.protectedFields; none by default). */
export function protectedInstallationFields(app: AppConfig): readonly string[] {
  return app.settings.protectedFields[installationClass] ?? [];
}
