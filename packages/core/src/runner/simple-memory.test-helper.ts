/** A minimal memory for the runner's own tests (the real ones live in `@mage-rl/reflection`). */

import type { ChatMessage, MemorySlotInfoV1, MemoryV1 } from '@mage-rl/spec';

const REMARK = /<remark>([\s\S]*?)<\/remark>/;

export function simpleMemory(options: { reflects?: boolean; log?: MemorySlotInfoV1[] } = {}): MemoryV1 & {
  readonly ended: string[];
  commits: number;
} {
  const ended: string[] = [];
  const memory = {
    specificationVersion: 'v1' as const,
    id: 'simple',
    reflects: options.reflects ?? true,
    ended,
    commits: 0,
    commit() {
      memory.commits++;
    },
    createSlot(info: MemorySlotInfoV1) {
      options.log?.push(info);
      const notes = (earlier: readonly { attempt: number; reflection?: { note: string } }[]) =>
        earlier.map((a) => `note ${a.attempt}: ${a.reflection?.note ?? ''}`).join('\n');
      return {
        playMessages(
          view: Parameters<import('@mage-rl/spec').MemorySlotV1['playMessages']>[0],
        ): ChatMessage[] {
          if (info.layout === 'turn') {
            const history = view.current.map((s) => `${s.action ?? '?'} -> ${s.event}`).join('\n');
            return [
              {
                role: 'user',
                content: `${info.rules}\nstart: ${view.initialText}\n${notes(view.earlier)}\n${history}\nattempt ${view.attempt}\n${view.observation.text}`,
              },
            ];
          }
          const messages: ChatMessage[] = [
            { role: 'user', content: `${info.rules}\nattempt ${view.attempt}\n${view.initialText}` },
          ];
          for (const s of view.current) {
            messages.push({ role: 'assistant', content: s.response, tokens: s.responseTokens });
            messages.push({ role: 'user', content: `${s.event}\n${s.nextObservation}` });
          }
          return messages;
        },
        reflectMessages(
          view: Parameters<import('@mage-rl/spec').MemorySlotV1['reflectMessages']>[0],
        ): ChatMessage[] {
          const last = view.earlier[view.earlier.length - 1];
          return [
            {
              role: 'user',
              content: `reflect on attempt ${last?.attempt}: ${last?.outcome.label}\n${last?.steps.map((s) => s.event).join('\n')}\nanswer <remark>note</remark>`,
            },
          ];
        },
        parseReflection(response: string) {
          const m = REMARK.exec(response);
          return m ? { note: (m[1] ?? '').trim(), valid: true } : { note: '', valid: false };
        },
        attemptEnded(attempt: { attempt: number; reflection?: { note: string } }) {
          ended.push(`${info.slot}#${attempt.attempt}:${attempt.reflection?.note ?? '-'}`);
        },
      };
    },
  };
  return memory;
}
