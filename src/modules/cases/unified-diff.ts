/**
 * Checks that a text is a unified diff (`diff -u`, `git diff`, `git format-patch`): at least one
 * file with `--- ` and `+++ ` headers and hunks whose `@@ -a,b +c,d @@` counts match their lines.
 * A commit message before the first file and a `-- ` signature after the last hunk are allowed,
 * as git writes them; between files only git's extended header lines. Returns the first problem,
 * with its line number, or null.
 */
const GIT_HEADER =
  /^(diff |index |new file mode |deleted file mode |old mode |new mode |similarity index |dissimilarity index |rename from |rename to |copy from |copy to |Binary files )/;
const HUNK = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/;

export function unifiedDiffProblem(text: string): string | null {
  const lines = text.replace(/\r\n/g, '\n').split('\n');
  // The newline that ends the last line starts no line of its own.
  if (lines.at(-1) === '') lines.pop();
  let i = lines.findIndex((l, n) => l.startsWith('--- ') && (lines[n + 1] ?? '').startsWith('+++ '));
  if (i < 0) return 'no "--- " and "+++ " file headers';
  let files = 0;
  while (i < lines.length) {
    const line = lines[i] ?? '';
    if (line.startsWith('--- ') && (lines[i + 1] ?? '').startsWith('+++ ')) {
      i += 2;
      if (!HUNK.test(lines[i] ?? '')) return `line ${i + 1}: a file header must be followed by a hunk ("@@ -a,b +c,d @@")`;
      files += 1;
      continue;
    }
    const hunk = HUNK.exec(line);
    if (hunk) {
      let oldLeft = hunk[2] === undefined ? 1 : Number(hunk[2]);
      let newLeft = hunk[4] === undefined ? 1 : Number(hunk[4]);
      const start = i + 1;
      i += 1;
      while (oldLeft > 0 || newLeft > 0) {
        if (i >= lines.length) return `line ${start}: the hunk ends early (${oldLeft} old and ${newLeft} new lines missing)`;
        const l = lines[i] ?? '';
        const mark = l === '' ? ' ' : l[0];
        if (mark === ' ') {
          oldLeft -= 1;
          newLeft -= 1;
        } else if (mark === '-') oldLeft -= 1;
        else if (mark === '+') newLeft -= 1;
        else if (mark !== '\\') return `line ${i + 1}: a hunk line starts with " ", "+", "-" or "\\"`;
        if (oldLeft < 0 || newLeft < 0) return `line ${i + 1}: the hunk has more lines than its header says`;
        i += 1;
      }
      if ((lines[i] ?? '').startsWith('\\')) i += 1;
      continue;
    }
    if (GIT_HEADER.test(line)) {
      i += 1;
      continue;
    }
    // The rest may only be blank lines or git's `-- ` signature and what follows it.
    if (line === '-- ' || lines.slice(i).every((l) => l.trim() === '')) break;
    return `line ${i + 1}: unexpected text between the hunks`;
  }
  return files > 0 ? null : 'no hunk';
}
