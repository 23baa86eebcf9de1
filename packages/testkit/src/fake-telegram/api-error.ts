/** An error answer exactly as the Bot API sends it; thrown by method handlers. */
export class ApiError extends Error {
  constructor(
    readonly code: number,
    readonly description: string,
    readonly parameters?: { retry_after?: number; migrate_to_chat_id?: number },
  ) {
    super(description);
  }

  static badRequest(detail: string): ApiError {
    return new ApiError(400, `Bad Request: ${detail}`);
  }

  toBody(): { ok: false; error_code: number; description: string; parameters?: object } {
    const body = { ok: false as const, error_code: this.code, description: this.description };
    return this.parameters ? { ...body, parameters: this.parameters } : body;
  }
}
