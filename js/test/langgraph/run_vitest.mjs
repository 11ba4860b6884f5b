// Runs one Vitest file (argv[2]) with Vitest's globals, as the validation
// suite expects, and prints one line: RESULT {"passed","failed","skipped",
// "failures"}. Exit status 0 when nothing failed.
import path from 'node:path';

import {startVitest} from 'vitest/node';

const file = path.resolve(process.argv[2]);
const dir = path.dirname(file);
const vitest = await startVitest('test', [file], {
  globals: true, include: [path.basename(file)], root: dir, dir,
  watch: false, reporters: ['dot'], cache: false,
});
const counts = {passed: 0, failed: 0, skipped: 0, failures: []};
const walk = (task) => {
  if (task.type === 'test') {
    const state = task.result?.state;
    if (state === 'pass') counts.passed += 1;
    else if (state === 'fail') {
      counts.failed += 1;
      counts.failures.push(`${task.name}: ${task.result.errors?.[0]?.message}`.slice(0, 400));
    } else counts.skipped += 1;
  }
  for (const child of task.tasks ?? []) walk(child);
};
const files = vitest?.state.getFiles() ?? [];
files.forEach(walk);
if (files.length === 0 || files.some((f) => f.result?.state === 'fail' && !f.tasks?.length)) {
  counts.failed += 1;
  counts.failures.push('the file did not load');
}
console.log('RESULT ' + JSON.stringify(counts));
await vitest?.close();
process.exit(counts.failed === 0 ? 0 : 1);
