#!/usr/bin/env node
// Measures what the house rules bound in packages/*/src (tests excluded): files longer than 600 lines
// (split them by job), functions longer than 120 lines (a TypeScript syntax-tree scan), `as number` and `as unknown as` casts, and comments that cite
// spec sections. Exits 1 when a bound is broken.
//
//   node scripts/code-health.mjs
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const root = new URL('..', import.meta.url).pathname;
const ts = createRequire(`${root}package.json`)('typescript');
const MAX_FUNCTION_LINES = 120;
const MAX_FILE_LINES = 600;

const files = execFileSync('git', ['ls-files', '-co', '--exclude-standard', 'packages/*/src/**.ts'], {
  cwd: root,
  encoding: 'utf8',
})
  .split('\n')
  .filter((f) => f && !f.endsWith('.test.ts') && !f.endsWith('.d.ts'));

const long = [];
const longFiles = [];
let asNumber = 0;
let asUnknown = 0;
let specCitations = 0;
for (const file of files) {
  const text = readFileSync(`${root}${file}`, 'utf8');
  const lines = text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
  if (lines > MAX_FILE_LINES) longFiles.push(`${file} (${lines} lines)`);
  asNumber += text.match(/\bas number\b/g)?.length ?? 0;
  asUnknown += text.match(/\bas unknown as\b/g)?.length ?? 0;
  specCitations += text.match(/SPEC §/g)?.length ?? 0;
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const visit = (node) => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const start = source.getLineAndCharacterOfPosition(node.getStart()).line;
      const end = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      if (end - start + 1 > MAX_FUNCTION_LINES) long.push(`${file}:${start + 1} (${end - start + 1} lines)`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
}

for (const line of longFiles) process.stdout.write(`file over ${MAX_FILE_LINES} lines: ${line}\n`);
for (const line of long) process.stdout.write(`function over ${MAX_FUNCTION_LINES} lines: ${line}\n`);
process.stdout.write(
  `${files.length} files: ${longFiles.length} over ${MAX_FILE_LINES} lines, ${long.length} functions over ${MAX_FUNCTION_LINES} lines, ${asNumber} 'as number', ${asUnknown} 'as unknown as', ${specCitations} spec citations\n`,
);
process.exit(longFiles.length > 0 || long.length > 0 || asUnknown > 0 || specCitations > 0 ? 1 : 0);
