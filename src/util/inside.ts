import { isAbsolute, relative, sep } from 'node:path';

/** `child` lies below the folder `parent` (both absolute paths; a folder is not below itself). */
export function isInside(child: string, parent: string): boolean {
  const rel = relative(parent, child);
  return rel !== '' && rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel);
}
