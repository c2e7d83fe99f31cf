// The differential run's summary, and the choice of a small covering set of files to save.

/** Greedy set cover: files until every label (rule, change, shape) seen is covered; smaller files first on ties. */
export const chooseCovering = (candidates) => {
  const uncovered = new Set(candidates.flatMap((candidate) => candidate.labels))
  const chosen = []
  const rest = [...candidates].sort((a, b) => a.bytes - b.bytes)
  while (uncovered.size > 0) {
    let best
    let gain = 0
    for (const candidate of rest) {
      const g = candidate.labels.filter((label) => uncovered.has(label)).length
      if (g > gain) [best, gain] = [candidate, g]
    }
    if (best === undefined) break
    chosen.push(best)
    rest.splice(rest.indexOf(best), 1)
    for (const label of best.labels) uncovered.delete(label)
  }
  return chosen.sort((a, b) => a.name.localeCompare(b.name, "en", { numeric: true }))
}

const counted = (items) => {
  const counts = new Map()
  for (const item of items) counts.set(item, (counts.get(item) ?? 0) + 1)
  return [...counts].sort((a, b) => b[1] - a[1]).map(([item, n]) => `${item} ${n}`).join(", ")
}

/** Prints the tables: per shape, pi 1.6 against the others, and per §15 rule. */
export const printReport = ({ first, count, tally, rules, pi16Disagreements, leavesChecked, everyLeaf }) => {
  console.log(
    `differential run: pi 0.73.1, OpenClaw 2026.6.11 and pi 1.6.0 against branchlog, seeds ${first}..${
      first + count - 1
    }`
  )
  console.log("(expected: OpenClaw's answer on v3 / openclaw / v2 / v1, pi 1.6's on pi16)\n")
  console.log("shape     files  same as expected  pi differs  pi16 differs  skipped  changes applied")
  for (const [shape, row] of tally) {
    const kinds = [...row.kinds].map(([kind, n]) => `${kind} ${n}`).join(", ")
    console.log(
      `${shape.padEnd(9)} ${String(row.files).padStart(5)}  ${String(row.same).padStart(16)}  ${
        shape === "pi16" ? "         -" : String(row.piDiffers).padStart(10)
      }  ${shape === "pi16" ? "         -" : String(row.pi16Differs).padStart(12)}  ${
        String(row.skipped).padStart(7)
      }  ${kinds}`
    )
  }
  const bySection = [...tally].filter(([, row]) => row.sections.size > 0)
  if (bySection.length > 0) console.log("\nwhere branchlog differs, by section:")
  for (const [shape, row] of bySection) {
    console.log(`  ${shape.padEnd(9)} ${[...row.sections].map(([section, n]) => `${section} ${n}`).join(", ")}`)
  }
  const plain = [...tally].filter(([shape]) => shape !== "pi16")
  if (plain.length > 0) {
    const files = plain.reduce((n, [, row]) => n + row.files - row.skipped, 0)
    console.log(
      `\npi 1.6 on the ${files} file(s) without its types: differs from OpenClaw on ${
        pi16Disagreements.filter((d) => d.vsOpenClaw.length > 0).length
      }, from pi 0.73.1 on ${pi16Disagreements.filter((d) => d.vsPi.length > 0).length}`
    )
    const groups = new Map()
    for (const d of pi16Disagreements) {
      const key = `vs OpenClaw: ${d.vsOpenClaw.join("+") || "same"}; vs pi 0.73.1: ${d.vsPi.join("+") || "same"}${
        d.threw ? ` (${d.threw.replace(/\/\S+/g, "FILE")})` : ""
      }`
      groups.set(key, [...(groups.get(key) ?? []), d])
    }
    for (const [key, list] of groups) {
      console.log(`  ${String(list.length).padStart(4)}  ${key}`)
      console.log(`        shapes: ${counted(list.map((d) => d.shape))}`)
      console.log(`        changes: ${counted(list.flatMap((d) => d.kinds.length > 0 ? d.kinds : ["undamaged"]))}`)
    }
  }
  if (rules.size > 0) {
    console.log("\npi16 shape, per §15 rule (read off pi 1.6's own selection at the leaf):")
    console.log(`  ${"rule".padEnd(40)} files  branchlog differs  in the context`)
    for (const [rule, { files, differ, context }] of [...rules].sort((a, b) => a[0].localeCompare(b[0]))) {
      console.log(
        `  ${rule.padEnd(40)} ${String(files).padStart(5)}  ${String(differ).padStart(17)}  ${
          String(context).padStart(14)
        }`
      )
    }
  }
  if (everyLeaf) console.log(`\ncontexts compared with pi (0.73.1 on v3 / v2, 1.6 on pi16) at ${leavesChecked} leaves`)
}
