import { describe, expect, it } from 'vitest';
import { selfLoops, toMermaid } from './diagram.ts';
import readme from './README.md?raw';
import { tableEdges } from './session-machine.ts';

const between = (text: string, name: string) => {
  const start = text.indexOf(`<!-- ${name}:start -->`);
  const end = text.indexOf(`<!-- ${name}:end -->`);
  if (start < 0 || end < 0) throw new Error(`README has no ${name} block`);
  return text.slice(start, end);
};

describe('README is checked against the transition table', () => {
  it('contains exactly the generated diagram', () => {
    expect(between(readme, 'diagram')).toContain(`\`\`\`mermaid\n${toMermaid()}\n\`\`\``);
  });

  it('lists every transition of the table, moves and self-loops alike', () => {
    const diagram = between(readme, 'diagram');
    const loops = between(readme, 'self-loops');
    for (const e of tableEdges()) {
      if (e.to === e.from) {
        expect(loops, `${e.from} ${e.event}`).toContain(`- ${e.from}: ${e.event}${e.guard ? ` [${e.guard}]` : ''}\n`);
      } else if (e.to === 'previous') {
        expect(diagram).toContain(`  ${e.from} --> Running: ${e.event} (previous)`);
      } else {
        expect(diagram, `${e.from} ${e.event}`).toContain(`  ${e.from} --> ${e.to}: ${e.event}${e.guard ? ` [${e.guard}]` : ''}\n`);
      }
    }
    expect(selfLoops().length).toBeGreaterThan(20);
  });
});

describe('the domain stays pure', () => {
  const sources = import.meta.glob(['./*.ts', '!./*.test.ts'], { query: '?raw', import: 'default', eager: true });
  it('imports nothing but its own files', () => {
    expect(Object.keys(sources).length).toBeGreaterThan(10);
    for (const [file, text] of Object.entries(sources)) {
      const specifiers = [...text.matchAll(/^\s*(?:import|export)[^'"]*from\s+'([^']+)'/gm)].map((m) => m[1]);
      for (const s of specifiers) expect(s, `${file} imports ${s}`).toMatch(/^\.\/[a-z-]+\.ts$/);
      expect(text, file).not.toMatch(/process\.env|Date\.now\(\)|Math\.random\(\)|new Date\(\)/);
    }
  });
});
