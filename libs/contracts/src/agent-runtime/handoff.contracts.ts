import { z } from 'zod';

/**
 * The handoff artefact of seed 000 §6.3 ("end of day"), plus the preserved context of seed 003
 * Requirement 2: PRESERVE_VERBATIM items travel byte-identical, PRESERVE_STRUCTURED items keep
 * their data. Rendered as the seed's markdown and parsed back by the runtime.
 */
export const contextCategories = ['PRESERVE_VERBATIM', 'PRESERVE_STRUCTURED', 'COMPRESS_AGGRESSIVE', 'EPHEMERAL'] as const;
export type ContextCategory = (typeof contextCategories)[number];

export const handoffFileChanges = ['new', 'modified', 'deleted'] as const;

const line = z.string().trim().min(1).max(2_000).refine((s) => !s.includes('\n'), 'must be a single line');

export const preservedItemSchema = z.object({
  id: z.string().min(1).max(200).regex(/^[A-Za-z0-9._:-]+$/, 'id may hold letters, digits, . _ : - only'),
  category: z.enum(['PRESERVE_VERBATIM', 'PRESERVE_STRUCTURED']),
  /** What kind of content, e.g. error-message, file-path, decision-record (the matching pattern). */
  kind: z.string().min(1).max(100).regex(/^[a-z0-9-]+$/),
  content: z.string().min(1).max(100_000),
});
export type PreservedItem = z.output<typeof preservedItemSchema>;

export const handoffArtefactSchema = z.object({
  /** Persona display name, e.g. "Con". */
  persona: z.string().trim().min(1).max(100).regex(/^[^\n—]+$/, 'must be one line without an em dash'),
  /** When the outgoing session wrote the artefact (ISO 8601 UTC). */
  sessionAt: z.iso.datetime(),
  task: line,
  status: line,
  percentComplete: z.number().int().min(0).max(100).optional(),
  whatWasDone: z.array(line).max(200),
  whatRemains: z.array(line).max(200),
  blockersNotes: z.array(line).max(200),
  filesModified: z.array(z.object({ path: z.string().trim().min(1).max(1_000).regex(/^[^\n()]+$/), change: z.enum(handoffFileChanges) })).max(2_000),
  suggestedNextSteps: z.array(line).min(1).max(50),
  preserved: z.array(preservedItemSchema).max(500).default([]),
});
export type HandoffArtefact = z.output<typeof handoffArtefactSchema>;
export type HandoffArtefactInput = z.input<typeof handoffArtefactSchema>;
