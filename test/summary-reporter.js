// Prints one plain closing line ("tests: N passed, N failed, N skipped") as the very last output of a
// jest run, after jest's own summary, so that any log reader can tell how many tests ran.
class SummaryReporter {
  onRunComplete(_contexts, results) {
    const skipped = results.numPendingTests + results.numTodoTests;
    const line = `tests: ${results.numPassedTests} passed, ${results.numFailedTests} failed, ${skipped} skipped\n`;
    // Jest prints its own summary after the reporters have run; at exit ours comes last.
    process.once('exit', () => process.stdout.write(line));
  }
}
module.exports = SummaryReporter;
