/**
 * Paths as records store them: relative to the directory the command ran in when they are inside it, so a
 * record names no machine's directory layout and reads the same wherever the project is checked out or
 * copied; absolute otherwise (relative to nothing a reader could find). See architecture/records.md.
 */

import { isAbsolute, relative, resolve, sep } from 'node:path';

/** `path` relative to `cwd` (default: the process's) when inside it (`.` for `cwd` itself), else absolute. */
export function storedPath(path: string, cwd: string = process.cwd()): string {
  const absolute = resolve(cwd, path);
  const inside = relative(resolve(cwd), absolute);
  if (inside === '') return '.';
  const outside = inside === '..' || inside.startsWith(`..${sep}`) || isAbsolute(inside);
  return outside ? absolute : inside;
}
