/**
 * The install lines of a README: the `npm install …` lines of the first `sh` block of its
 * `## Install` section, as the release check runs them in a fresh project. A line's `# comment`
 * is dropped; a comment starting `Node 20 only` (or `Node 20:`) limits the line to Node 20, where
 * a native peer stands in for what later Nodes have built in.
 */
import { readFileSync } from "node:fs"

/** One install line: npm's arguments after `npm`, and the Node majors it applies to (`undefined`: all). */
export interface InstallLine {
  readonly text: string
  readonly args: ReadonlyArray<string>
  readonly nodeMajors: ReadonlyArray<number> | undefined
}

/** The install lines of a README's text (an error when it has no `## Install` section with one). */
export const installLines = (readme: string): Array<InstallLine> => {
  const section = /^## Install\n([\s\S]*?)(?=^## )/m.exec(readme + "\n## end\n")?.[1]
  const block = section === undefined ? undefined : /^```sh\n([\s\S]*?)^```$/m.exec(section)?.[1]
  if (block === undefined) throw new Error("the README has no ```sh block under ## Install")
  const lines = block.split("\n").map((line) => line.trim()).filter((line) => line.startsWith("npm install "))
  if (lines.length === 0) throw new Error("the README's install block has no `npm install` line")
  return lines.map((line) => {
    const hash = line.indexOf("#")
    const command = (hash < 0 ? line : line.slice(0, hash)).trim()
    const comment = hash < 0 ? "" : line.slice(hash + 1).trim()
    return {
      text: command,
      args: command.split(/\s+/).slice(1),
      nodeMajors: /^Node 20( only|:)/.test(comment) ? [20] : undefined
    }
  })
}

/** The install lines of a README file. */
export const readmeInstallLines = (path: string): Array<InstallLine> => installLines(readFileSync(path, "utf8"))

/** The line without its `effect@…` argument: what an app that pins effect already runs. */
export const withoutEffect = (line: InstallLine): InstallLine => ({
  ...line,
  args: line.args.filter((arg) => !/^effect@/.test(arg))
})
