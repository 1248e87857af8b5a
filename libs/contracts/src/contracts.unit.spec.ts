import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { AgentRuntimeErrorCodes } from './errors/agent-runtime.codes';
import { EventRegistry, HeadspaceError, ValidationError, defineCommand, defineEvent, eventSubject, httpStatusForCode, namespacedStreamName, parseOrThrow, setSubjectNamespace } from './index';

describe('contracts', () => {
  const created = defineEvent({ service: 'team-manager', category: 'team', name: 'created', schema: z.object({ name: z.string() }) });

  it('an event definition derives its type and subject from service, category and name', () => {
    expect(created.type).toBe('team.created');
    expect(created.subject).toBe('hs.evt.team-manager.team.created');
    expect(created.schemaVersion).toBe(1);
  });

  it('a namespace prefixes every subject and stream name, and a bad one is refused', () => {
    setSubjectNamespace('ci-7');
    try {
      expect(created.subject).toBe('ci-7.hs.evt.team-manager.team.created');
      expect(namespacedStreamName('HS_EVT_TEAM_MANAGER')).toBe('CI_7_HS_EVT_TEAM_MANAGER');
      expect(eventSubject('team-manager', 'team.created')).toBe('ci-7.hs.evt.team-manager.team.created');
    } finally {
      setSubjectNamespace('');
    }
    expect(created.subject).toBe('hs.evt.team-manager.team.created');
    expect(() => setSubjectNamespace('Bad Space')).toThrow(/HS_NAMESPACE/);
  });

  it('commands and queries get hs.cmd / hs.qry subjects', () => {
    const def = defineCommand({ service: 'cost-governor', name: 'may-spend', request: z.object({}), response: z.object({}) });
    expect(def.subject).toBe('hs.cmd.cost-governor.may-spend');
  });

  it('the registry refuses a payload with a ValidationError naming the field', () => {
    const registry = new EventRegistry([created]);
    const error = (() => { try { registry.parse('team.created', { name: 3 }); } catch (e) { return e; } })();
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).field).toBe('data.name');
    expect((error as ValidationError).message).toContain('data.name');
    expect(() => registry.get('team.nope')).toThrow(/Unknown event type/);
  });

  it('parseOrThrow names nested fields', () => {
    const schema = z.object({ members: z.array(z.object({ name: z.string().min(1) })) });
    expect(() => parseOrThrow(schema, { members: [{ name: '' }] }, 'team')).toThrow(/members\.0\.name/);
  });

  it('a HeadspaceError survives the wire with its code and field', () => {
    const original = new HeadspaceError('TASK.ALREADY_CLAIMED', 'Task already claimed', { field: 'taskId', details: { by: 'con' } });
    const wire = JSON.parse(JSON.stringify(original.toWire()));
    expect(HeadspaceError.isWire(wire)).toBe(true);
    const back = HeadspaceError.fromWire(wire);
    expect(back).toMatchObject({ code: 'TASK.ALREADY_CLAIMED', field: 'taskId', details: { by: 'con' } });
  });

  it('maps error codes to HTTP statuses in one place', () => {
    expect(httpStatusForCode('CONTRACTS.VALIDATION_FAILED')).toBe(400);
    expect(httpStatusForCode('EVENTSTORE.WRONG_EXPECTED_VERSION')).toBe(409);
    expect(httpStatusForCode('TASK.ALREADY_CLAIMED')).toBe(409);
    expect(httpStatusForCode('TASK.NOT_FOUND')).toBe(404);
    expect(httpStatusForCode('MESSAGING.TIMEOUT')).toBe(503);
    expect(httpStatusForCode('MESSAGING.PUBLISH_REJECTED')).toBe(502);
    expect(httpStatusForCode('PERSONA.LEASE_NOT_FOUND')).toBe(404);
    expect(httpStatusForCode('MAILBOX.LEAD_ALREADY_EXISTS')).toBe(409);
    expect(httpStatusForCode('SOMETHING.ODD')).toBe(500);
  });

  it('maps agent-runtime refusals to client errors and upstream failures to 5xx, never a bare 500', () => {
    expect(httpStatusForCode('TOOL.PATH_OUTSIDE_WORKSPACE')).toBe(400);
    expect(httpStatusForCode('TOOL.WRITE_OUTSIDE_OWNS')).toBe(403);
    expect(httpStatusForCode('TOOL.DENIED_BY_HOOK')).toBe(403);
    expect(httpStatusForCode('TOOL.TIMEOUT')).toBe(504);
    expect(httpStatusForCode('REFLECTION.MALFORMED')).toBe(422);
    expect(httpStatusForCode('CLAUDE_CODE.FAILED')).toBe(502);
    const unmapped = Object.values(AgentRuntimeErrorCodes).filter((code) => httpStatusForCode(code) === 500);
    expect(unmapped).toEqual([]);
  });
});
