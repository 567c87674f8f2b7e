// An sh script that runs "$@" and stops it when our end of its stdin closes: on stop(), and also
// when the test process dies in any way (a timeout, SIGKILL), so no child outlives its tests; then
// it removes the child's folder, named by the environment variable `rootVariable`.
export function stdinWatchdog(signal: "TERM" | "QUIT", rootVariable: string): string {
  return `exec 3<&0
"$@" 3<&- &
child=$!
(
  read -r _ <&3
  kill -${signal} "$child" 2>/dev/null
  while kill -0 "$child" 2>/dev/null; do sleep 0.1; done
  rm -rf "$${rootVariable}"
) &
wait "$child"`;
}
