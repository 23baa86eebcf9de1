import { AppError } from '../../domain/index.ts';
import type { Executor } from '../../protocol/messages.ts';
import { isPermissionMode, parseModel, permissionModeOf, type SessionPermissionMode } from '../../protocol/session-choices.ts';

export interface NodeChoices {
  claudePermissionMode: string;
  codexPermissionMode: string;
  unavailableModes: string[];
}

/** The node's preselected mode for an executor (older stored values read as what they launched). */
export function nodeDefaultMode(executor: Executor, node: Pick<NodeChoices, 'claudePermissionMode' | 'codexPermissionMode'>): SessionPermissionMode {
  return permissionModeOf(executor, executor === 'claude' ? node.claudePermissionMode : node.codexPermissionMode);
}

/** Whether the node's agent said this mode cannot start there (Claude's bypassPermissions as root). */
export function modeUnavailable(node: Pick<NodeChoices, 'unavailableModes'>, executor: Executor, mode: string): boolean {
  return node.unavailableModes.includes(`${executor}:${mode}`);
}

/**
 * The mode and model a new session is created with: what the user chose, checked against the
 * executor's closed list and what the node can start; the node's default when no mode was chosen.
 */
export function sessionChoices(
  executor: Executor,
  node: NodeChoices,
  input: { permissionMode?: string; model?: string | null },
): { permissionMode: SessionPermissionMode; model: string | null } {
  const permissionMode = input.permissionMode ?? nodeDefaultMode(executor, node);
  if (!isPermissionMode(executor, permissionMode)) {
    throw new AppError('INVALID_INPUT', { message: `permission mode not offered for ${executor}`, userMessage: 'sessions.mode_invalid' });
  }
  if (modeUnavailable(node, executor, permissionMode)) {
    throw new AppError('INVALID_INPUT', { message: 'permission mode cannot start on this node', userMessage: `sessions.mode_unavailable.${executor}` });
  }
  const model = parseModel(input.model);
  if (!model.ok)
    throw new AppError('INVALID_INPUT', {
      message: `model name ${model.reason}`,
      userMessage: 'sessions.model_invalid',
      ...(model.reason === 'too_long' ? { reason: 'too_long' as const } : {}),
    });
  return { permissionMode, model: model.model };
}
