/**
 * The runnable examples of a README: every fenced `ts` block whose first line is `// file: NAME`
 * is the file NAME of one example project (the release check writes them into a fresh npm project,
 * type-checks and runs them), so what a README shows is what gets tested.
 */
import { readFileSync } from "node:fs"

/** The example files of a README's text, by name, in order (a name given twice is an error). */
export const exampleFiles = (text: string): Map<string, string> => {
  const files = new Map<string, string>()
  const block = /^```ts\n\/\/ file: (\S+)\n([\s\S]*?)^```$/gm
  for (const match of text.matchAll(block)) {
    const [, name, body] = match as unknown as [string, string, string]
    if (files.has(name)) throw new Error(`the README has two examples named ${name}`)
    files.set(name, body)
  }
  return files
}

/** The example files of a README file. */
export const readmeExamples = (path: string): Map<string, string> => exampleFiles(readFileSync(path, "utf8"))
