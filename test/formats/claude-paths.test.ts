/** Claude Code's project folder for a working directory, long ones included (names the real binary made). */
import { describe, expect, it } from 'vitest';
import { encodeProjectPath } from '../../src/formats/claude/index.js';

describe("Claude Code's project folder names", () => {
  it('replaces every character outside [A-Za-z0-9] with -', () => {
    expect(encodeProjectPath('/tmp/a.b')).toBe('-tmp-a-b');
    expect(encodeProjectPath('/home/me/my_proj-1')).toBe('-home-me-my-proj-1');
    expect(encodeProjectPath('/tmp/é')).toBe('-tmp--');
  });

  it('cuts a name over 200 characters and adds the path hash, as Claude Code 2.1.332 named this folder', () => {
    const cwd = `/tmp/tb-agents-home-F3AvMC/${'a'.repeat(60)}/${'b'.repeat(60)}/${'c'.repeat(60)}/proj.v1_x`;
    expect(encodeProjectPath(cwd)).toBe(
      `-tmp-tb-agents-home-F3AvMC-${'a'.repeat(60)}-${'b'.repeat(60)}-${'c'.repeat(51)}-em4686`,
    );
    // exactly 200 is kept whole
    const at200 = `/${'x'.repeat(199)}`;
    expect(encodeProjectPath(at200)).toBe(`-${'x'.repeat(199)}`);
  });
});
