// Types of scripts/slowest-files.mjs's helpers, for test/scripts/slowest-files.test.ts.
export type Times = Record<string, number>;
export function readTimes(path: string): Times;
export function slowestFirst(files: readonly string[], times: Times): string[];
export function keepTimes(path: string, rows: readonly { file: string; ms: number }[]): void;
declare function slowestFiles(source: AsyncIterable<unknown>): AsyncGenerator<string>;
export default slowestFiles;
