/** The example manifest of seed 001, verbatim. */
export const SEED_MANIFEST = `team: project-slug
description: "One-line project description"

defaults:
  model: sonnet
  budget: 0.50
  permission-mode: dontAsk

members:
  - name: architect
    role: "System design, API contracts, patterns"
    model: opus            # override default
    budget: 1.00           # override default
    tools: [Read, Grep, Glob, "Bash(git:*)"]
    owns: ["src/core/**", "docs/**", "*.md"]

  - name: backend
    role: "Server logic, data models, business rules"
    tools: [Read, Write, Edit, Grep, Glob, "Bash(git:*)", "Bash(uv run pytest:*)"]
    owns: ["src/domain/**", "src/infra/**", "tests/**"]
`;
