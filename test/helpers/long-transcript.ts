/** A Claude Code transcript of long turns, for the tests of output written in pieces (export, --json). */

/**
 * `turns` prompts and replies of session `id`, each text about `chars` long: the prompt `turn <t>` and
 * `wrap(q…q)` (to put characters in it that a format escapes), the reply `reply <t> & r…r →`.
 */
export function longTranscript(id: string, turns: number, chars: number, wrap: (body: string) => string): string {
  const lines: string[] = [];
  let parent: string | null = null;
  for (let t = 0; t < turns; t++) {
    const base = { sessionId: id, cwd: '/p', version: '2.1.0', isSidechain: false, userType: 'external' };
    const u = `00000000-0000-4000-8000-${String(2 * t).padStart(12, '0')}`;
    const a = `00000000-0000-4000-8000-${String(2 * t + 1).padStart(12, '0')}`;
    const when = new Date(Date.UTC(2025, 9, 1, 0, t)).toISOString();
    lines.push(
      JSON.stringify({
        ...base,
        type: 'user',
        uuid: u,
        parentUuid: parent,
        timestamp: when,
        message: { role: 'user', content: `turn ${t} ${wrap('q'.repeat(chars))}` },
      }),
      JSON.stringify({
        ...base,
        type: 'assistant',
        uuid: a,
        parentUuid: u,
        timestamp: when,
        message: {
          id: `msg_${t}`,
          type: 'message',
          role: 'assistant',
          model: 'claude-sonnet-4-5',
          content: [{ type: 'text', text: `reply ${t} & ${'r'.repeat(chars)} →` }],
          stop_reason: 'end_turn',
          usage: { input_tokens: 10 + t, output_tokens: 5, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 },
        },
      }),
    );
    parent = a;
  }
  return `${lines.join('\n')}\n`;
}
