import { execFileSync } from "node:child_process"
import { existsSync } from "node:fs"

/** Debian's Chromium, which playwright-core drives (it never downloads a browser of its own). */
export const chromiumPath = "/usr/bin/chromium"

/** Installs Debian's `chromium` package when it is missing (the machines run as root; CI too). */
export const ensureChromium = (): void => {
  if (existsSync(chromiumPath)) return
  const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" }
  execFileSync("apt-get", ["update", "-qq"], { stdio: "inherit", env })
  execFileSync("apt-get", ["install", "-y", "-qq", "chromium"], { stdio: "inherit", env })
}

/** Chromium's flags for a closed network, as root, headless. */
export const chromiumArgs = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync"
]
