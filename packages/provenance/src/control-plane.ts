import { CONTROL_PLANE_FIELDS, KxmError } from "@kxm/contract";

/** One of the fields that would grant an agent something (`permissions`, `tools`, `token`, …). */
export type ControlPlaneField = (typeof CONTROL_PLANE_FIELDS)[number];

/**
 * The first control-plane field (in the contract's order) that `record` carries as an own top-level key, or
 * undefined. Only the field name is returned, never its value.
 */
export function findControlPlaneField(record: object): ControlPlaneField | undefined {
  return CONTROL_PLANE_FIELDS.find((field) => Object.hasOwn(record, field));
}

/**
 * Throws 403 `context_authority_violation` when `record` carries a control-plane field: context informs agents,
 * it never grants them anything. `subject` names what is refused, such as `context items` or `memory files`.
 */
export function assertNoControlPlaneFields(record: object, subject = "context items"): void {
  const field = findControlPlaneField(record);
  if (field !== undefined) {
    throw new KxmError(
      "context_authority_violation",
      `${subject} may not carry the control-plane field "${field}"`,
    );
  }
}
