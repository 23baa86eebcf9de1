/**
 * Test seam: the agent SIGKILLs itself at a named point when `BRIA_AGENT_TEST_CRASH` names it, so a
 * scenario can cut a command short at an exact step (no goodbye, nothing flushed but what is already
 * durable). Production never sets the variable. Points: `deliver:received` (command recorded, nothing
 * typed), `deliver:receipt` (pasted, receipt found in the journal, not yet recorded),
 * `deliver:accepted` (receipt recorded and `turn_accepted` written, command not finished),
 * `start:launching` (a start recorded in the session registry, the CLI about to be launched),
 * `resume:launching` (a resume recorded, the dead CLI's open turns written down, nothing launched),
 * `resume:confirmed` (the resumed CLI runs and confirmed its id, its identity not yet recorded),
 * `close:ended` (a close ended the CLI, nothing archived or reported yet).
 */
export function crashPoint(name: string): void {
  if (process.env.BRIA_AGENT_TEST_CRASH === name) process.kill(process.pid, 'SIGKILL');
}
