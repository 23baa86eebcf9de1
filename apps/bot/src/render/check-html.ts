/** Test helper: is this a balanced Telegram HTML fragment made only of tags Bria emits? */
export function htmlProblems(html: string): string[] {
  const problems: string[] = [];
  const stack: string[] = [];
  for (const m of html.matchAll(/<(\/?)([a-z][a-z0-9-]*)([^>]*)>|&([^;\s]*);?|[<>]/gi)) {
    if (m[0] === '<' || m[0] === '>') problems.push(`raw ${m[0]} at ${m.index}`);
    else if (m[0].startsWith('&')) {
      if (!/^&(amp|lt|gt|quot);$/.test(m[0])) problems.push(`bad entity ${m[0]} at ${m.index}`);
    } else if (m[1]) {
      if (stack.pop() !== m[2]) problems.push(`unbalanced </${m[2]}> at ${m.index}`);
    } else {
      if (!['b', 'i', 's', 'code', 'pre', 'a', 'blockquote'].includes(m[2] as string)) problems.push(`tag ${m[2]}`);
      stack.push(m[2] as string);
    }
  }
  if (stack.length) problems.push(`unclosed ${stack.join(',')}`);
  if (/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(html)) problems.push('lone surrogate');
  return problems;
}
