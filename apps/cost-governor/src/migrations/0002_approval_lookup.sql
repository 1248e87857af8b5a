-- The approval bridge finds the budget a decided approval belongs to by its approval id. Without
-- this index every decision scanned the whole log, which grows by several events per model call.
CREATE INDEX events_budget_approval_requested ON {{schema}}.events ((data ->> 'approvalId')) WHERE type = 'budget.approval-requested';
