import { existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { arch, platform, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/** A browser to launch: its path, and the environment it needs (the libraries and fonts shipped with it). */
export interface ChromiumBinary {
  executablePath: string;
  env?: Record<string, string>;
  /** Where it came from, for the suite's log. */
  source: string;
}

/** Set CHROMIUM_PATH to this to use the npm registry's Chromium even where Debian's is installed. */
export const REGISTRY_CHROMIUM = '@sparticuz/chromium';
const DEBIAN_CHROMIUM = '/usr/bin/chromium';

/**
 * The Chromium the browser suite drives (issue 24: `npm install && npm test` is the whole set-up):
 * CHROMIUM_PATH when set; else Debian's package (/usr/bin/chromium); else the headless Chromium
 * that the @sparticuz/chromium dev dependency ships, brotli-compressed, inside its npm tarball
 * (Linux x64 only). Elsewhere, why there is none.
 */
export async function findChromium(env: NodeJS.ProcessEnv = process.env): Promise<ChromiumBinary | { missing: string }> {
  const chosen = env.CHROMIUM_PATH;
  if (chosen && chosen !== REGISTRY_CHROMIUM) {
    // A path set by hand that is wrong is a mistake to report, not a reason to skip.
    if (!existsSync(chosen)) throw new Error(`CHROMIUM_PATH is ${chosen}, and there is no file there`);
    return { executablePath: chosen, source: 'CHROMIUM_PATH' };
  }
  if (!chosen && existsSync(DEBIAN_CHROMIUM)) return { executablePath: DEBIAN_CHROMIUM, source: "Debian's chromium package" };
  if (platform() !== 'linux' || arch() !== 'x64') {
    return { missing: `no Chromium: ${DEBIAN_CHROMIUM} is missing and @sparticuz/chromium ships a Linux x64 build only (this is ${platform()} ${arch()}); install Chromium or set CHROMIUM_PATH` };
  }
  return registryChromium();
}

/**
 * Unpacks @sparticuz/chromium once into a folder of its own under the temp dir (named by its
 * version), with the NSS libraries and the font it ships, so the browser needs nothing from the
 * machine but glibc. The package unpacks into os.tmpdir() and its font configuration names
 * /tmp/fonts, so TMPDIR points at a fresh folder while it unpacks, a configuration of our own
 * names the fonts, and the folder is renamed into place only when complete.
 */
async function registryChromium(): Promise<ChromiumBinary> {
  const require = createRequire(import.meta.url);
  const entry = require.resolve(REGISTRY_CHROMIUM);
  const { version } = require(join(dirname(entry), '..', 'package.json')) as { version: string };
  const home = join(tmpdir(), `model-gateway-chromium-${version}`);
  const libraries = join(home, 'al2023', 'lib');
  const fontConfig = join(home, 'fonts.conf');
  if (!existsSync(fontConfig)) {
    const partial = `${home}.partial-${process.pid}`;
    rmSync(partial, { recursive: true, force: true });
    mkdirSync(partial, { recursive: true });
    const previous = process.env.TMPDIR;
    process.env.TMPDIR = partial;
    try {
      const { default: Chromium, inflate } = await import('@sparticuz/chromium');
      await Chromium.executablePath();
      // Its NSS and expat, which Debian has only with a browser installed.
      await inflate(join(dirname(entry), '..', 'bin', 'al2023.tar.br'));
    } finally {
      if (previous === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = previous;
    }
    writeFileSync(
      join(partial, 'fonts.conf'),
      `<?xml version="1.0"?>\n<!DOCTYPE fontconfig SYSTEM "fonts.dtd">\n<fontconfig>\n  <dir>${join(home, 'fonts')}</dir>\n  <dir>/usr/share/fonts</dir>\n  <cachedir>${join(home, 'fonts-cache')}</cachedir>\n</fontconfig>\n`,
    );
    try {
      renameSync(partial, home);
    } catch (error) {
      // Another run got there first: its copy is as good.
      rmSync(partial, { recursive: true, force: true });
      if (!existsSync(fontConfig)) throw error;
    }
  }
  return {
    executablePath: join(home, 'chromium'),
    env: { LD_LIBRARY_PATH: [libraries, process.env.LD_LIBRARY_PATH].filter(Boolean).join(':'), FONTCONFIG_FILE: fontConfig },
    source: `@sparticuz/chromium ${version} (npm registry)`,
  };
}

/** playwright-core's launch options for a browser findChromium found: headless as root, with the environment it ships with. */
export function launchOptions(binary: ChromiumBinary): { executablePath: string; args: string[]; env?: Record<string, string | undefined> } {
  return { executablePath: binary.executablePath, args: ['--no-sandbox'], ...(binary.env ? { env: { ...process.env, ...binary.env } } : {}) };
}
