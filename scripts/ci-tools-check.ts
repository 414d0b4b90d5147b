// Vitest global setup: under CI, the outside tools the suites compare against must be present.
// Locally a missing tool skips the tests that need it; in CI that skip would hide a missing install
// step in .ci/run, so it fails the run instead.
import { spawnSync } from 'node:child_process';

const python = process.env.LINEWORK_PYTHON || '/usr/bin/python3';

const tools: { name: string; works: () => boolean }[] = [
  { name: `python3-ezdxf (${python})`, works: () => spawnSync(python, ['-c', 'import ezdxf'], { stdio: 'ignore' }).status === 0 },
  { name: 'librecad', works: () => spawnSync('sh', ['-c', 'command -v librecad'], { stdio: 'ignore' }).status === 0 },
  { name: 'pdftoppm (poppler-utils)', works: () => spawnSync('sh', ['-c', 'command -v pdftoppm'], { stdio: 'ignore' }).status === 0 },
  { name: 'chromium (the graphical editor\'s browser tests)', works: () => spawnSync(process.env.LINEWORK_CHROMIUM ?? '/usr/bin/chromium', ['--version'], { stdio: 'ignore' }).status === 0 },
];

export default function setup(): void {
  if (!process.env.CI) return;
  const missing = tools.filter((t) => !t.works()).map((t) => t.name);
  if (missing.length) throw new Error(`CI is missing test tools: ${missing.join(', ')} (install them in .ci/run)`);
}
