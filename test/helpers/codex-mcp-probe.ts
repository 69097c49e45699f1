/**
 * A stdio MCP server (the SDK from node_modules) with one tool, `echo` (`{text}` → "echo: <text>"),
 * for codex to start from its config.toml: codex offers it to the model in the `mcp__<name>` namespace.
 */
import { promises as fs } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const SDK = resolve('node_modules/@modelcontextprotocol/sdk/dist/esm/server');

/** Writes the server into `dir` and adds it to codex's config.toml in `codexHome` as `[mcp_servers.<name>]`. */
export async function addCodexMcpProbe(codexHome: string, dir: string, name = 'probe'): Promise<void> {
  const file = join(dir, 'mcp-probe.mjs');
  const url = (p: string) => pathToFileURL(join(SDK, p)).href;
  await fs.writeFile(
    file,
    [
      `import { McpServer } from '${url('mcp.js')}';`,
      `import { StdioServerTransport } from '${url('stdio.js')}';`,
      `import { z } from '${pathToFileURL(resolve('node_modules/zod/index.js')).href}';`,
      `const server = new McpServer({ name: '${name}', version: '1.0.0' });`,
      "server.tool('echo', 'Echo text back', { text: z.string() }, async ({ text }) => ({ content: [{ type: 'text', text: 'echo: ' + text }] }));",
      'await server.connect(new StdioServerTransport());',
      '',
    ].join('\n'),
  );
  await fs.appendFile(
    join(codexHome, 'config.toml'),
    // codex 0.171 starts a turn without an optional server still starting (a short grace), so on a loaded machine
    // the call came before node had loaded the SDK ("unsupported call: mcp__probeecho", no mcpToolCall); a
    // required server is waited for, up to startup_timeout_sec
    `\n[mcp_servers.${name}]\ncommand = "node"\nargs = [${JSON.stringify(file)}]\nstartup_timeout_sec = 120\nrequired = true\n`,
  );
}
