// Preloaded with `node --import`: records the URL of every module the process loads (one a line)
// in the file named by BRANCHLOG_TRACE_LOADS, through a module loader hook.
import { register } from "node:module"

register(
  "data:text/javascript," + encodeURIComponent(`
import { appendFileSync } from "node:fs"
export async function load(url, context, next) {
  if (process.env.BRANCHLOG_TRACE_LOADS) appendFileSync(process.env.BRANCHLOG_TRACE_LOADS, url + "\\n")
  return next(url, context)
}`)
)
