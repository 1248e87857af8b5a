import { Inject, Injectable } from '@nestjs/common';
import type { RankedLearning } from '@headspace/contracts';
import { quoteIdent } from '@headspace/event-store';
import { PG_POOL, SERVICE_SCHEMA } from '@headspace/platform';
import type { Pool } from 'pg';

export interface LearningQuery {
  team: string;
  q?: string;
  project?: string;
  persona?: string;
  limit: number;
  /**
   * `all`: web-search syntax, every word must match (what a person types). `any`: a task text,
   * any of its words may match — a session's prompt is long, and requiring all its words would
   * find nothing; ts_rank_cd still puts the learnings covering more of it first.
   */
  match?: 'all' | 'any';
}

interface Row {
  learning_id: string;
  team: string;
  project: string | null;
  persona: string | null;
  category: RankedLearning['category'];
  pattern: string;
  resolution: string;
  confidence: number;
  source: RankedLearning['source'];
  uses: number;
  created_at: Date;
  used_at: Date | null;
  relevance: number;
}

const QUERY = {
  all: `websearch_to_tsquery('english', $4)`,
  // plainto_tsquery joins lexemes with &; the OR of them is the same text with | (empty input: an empty query matching nothing).
  any: `replace(plainto_tsquery('english', $4)::text, ' & ', ' | ')::tsquery`,
};

/**
 * Ranked retrieval over the learnings read model: full-text relevance (`ts_rank_cd` with
 * normalisation 32, so it lies in [0, 1)) times confidence, so a learning that misled sessions sinks
 * below an equally relevant one that helped. A project or persona filter keeps the learnings of
 * that project/persona and those recorded for all of them.
 */
@Injectable()
export class LearningSearch {
  private readonly table: string;

  constructor(@Inject(PG_POOL) private readonly pool: Pool, @Inject(SERVICE_SCHEMA) schema: string) {
    this.table = `${quoteIdent(schema)}.learnings`;
  }

  async search(query: LearningQuery): Promise<RankedLearning[]> {
    const q = query.q?.trim();
    const relevance = q ? `ts_rank_cd(l.search, tsq, 32)` : '1::double precision';
    const from = q ? `${this.table} l, (SELECT ${QUERY[query.match ?? 'all']} AS tsq) query` : `${this.table} l`;
    const { rows } = await this.pool.query<Row>(
      `SELECT l.*, ${relevance} AS relevance FROM ${from}
       WHERE l.team = $1 AND ($2::text IS NULL OR l.project IS NULL OR l.project = $2) AND ($3::text IS NULL OR l.persona IS NULL OR l.persona = $3)
         ${q ? 'AND l.search @@ tsq' : 'AND $4::text IS NULL'}
       ORDER BY ${relevance} * l.confidence DESC, l.created_at DESC, l.learning_id
       LIMIT $5`,
      [query.team, query.project ?? null, query.persona ?? null, q ?? null, query.limit],
    );
    return rows.map((r) => ({
      learningId: r.learning_id,
      team: r.team,
      project: r.project,
      persona: r.persona,
      category: r.category,
      pattern: r.pattern,
      resolution: r.resolution,
      confidence: r.confidence,
      source: r.source,
      uses: r.uses,
      createdAt: r.created_at.toISOString(),
      usedAt: r.used_at ? r.used_at.toISOString() : null,
      relevance: round(r.relevance),
      score: round(r.relevance * r.confidence),
    }));
  }
}

const round = (n: number) => Math.round(n * 1_000_000) / 1_000_000;
