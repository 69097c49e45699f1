/** A WHERE clause built term by term, each term with its `?` values in order. */
export class Where {
  readonly terms: string[] = [];
  readonly args: unknown[] = [];

  /** Adds a term with its values. */
  add(sql: string, ...values: unknown[]): this {
    this.terms.push(sql);
    this.args.push(...values);
    return this;
  }

  /** Adds a term of one `?` for a filter value that was given (not undefined or ''). */
  given(value: string | undefined, sql: string): this {
    return value === undefined || value === '' ? this : this.add(sql, value);
  }

  /** The terms joined with AND (`1` when there are none). */
  get sql(): string {
    return this.terms.length ? this.terms.join(' AND ') : '1';
  }
}
