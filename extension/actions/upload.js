// The worker side of the upload action: the daemon read the files (only
// from the directories the user allowed) and sends them in params.files;
// this checks their shape and has the document's runtime set them on the
// file input the target names (upload-page.js), as a DOM action with
// effects.

import { CommandError } from '../runner.js';
import { acting } from './dom.js';

/** MAX_FILES and MAX_BYTES mirror the daemon's caps (internal/upload). */
export const MAX_FILES = 4;
export const MAX_BYTES = 20 * 1024 * 1024;

/**
 * filesOf checks params.files: 1 to MAX_FILES of {name, type, size,
 * last_modified, data (base64)}, MAX_BYTES in all. It returns them as the
 * page gets them or throws CommandError.
 */
export function filesOf(files) {
  if (!Array.isArray(files) || files.length === 0 || files.length > MAX_FILES) {
    throw new CommandError(`upload needs 1 to ${MAX_FILES} files from the daemon; pass paths of files under a directory the user allowed`);
  }
  let total = 0;
  return files.map((f, i) => {
    if (!f || typeof f.name !== 'string' || !f.name || typeof f.data !== 'string') {
      throw new CommandError(`upload: file ${i} has no name or content; this daemon and extension do not match: update both`);
    }
    total += f.data.length * 3 / 4;
    if (total > MAX_BYTES * 1.01) throw new CommandError(`upload: the files come to more than ${MAX_BYTES >> 20} MB`);
    return { name: f.name, type: typeof f.type === 'string' ? f.type : '', last_modified: Number(f.last_modified) || 0, data: f.data };
  });
}

/** upload sets the files on the file input params name. */
export async function upload(params, signal, ctx) {
  const files = filesOf(params.files);
  return acting('upload', params, signal, ctx, { files });
}
