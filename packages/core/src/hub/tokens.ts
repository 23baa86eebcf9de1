/** Reads `Authorization: Bearer <token>`; anything else is no credential. */
export function bearerToken(header: string | undefined): string | undefined {
  const m = /^Bearer\s+([A-Za-z0-9_\-.~+/=]{10,512})$/.exec(header?.trim() ?? '');
  return m?.[1];
}
