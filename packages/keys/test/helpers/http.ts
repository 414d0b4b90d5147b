/** A thin fetch wrapper: every call returns status, headers and the parsed JSON body. */
export interface Reply<T = any> {
  status: number;
  headers: Headers;
  body: T;
}

export interface RequestOptions {
  token?: string;
  body?: unknown;
  /** Raw body text (sent as is, with the given content type). */
  raw?: string;
  contentType?: string;
  headers?: Record<string, string>;
}

export class Client {
  constructor(readonly baseUrl: string) {}

  async request<T = any>(method: string, path: string, options: RequestOptions = {}): Promise<Reply<T>> {
    const headers: Record<string, string> = { ...options.headers };
    if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`;
    let body: string | undefined;
    if (options.raw !== undefined) {
      body = options.raw;
      headers['content-type'] = options.contentType ?? 'application/json';
    } else if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['content-type'] = 'application/json';
    }
    const res = await fetch(this.baseUrl + path, { method, headers, ...(body !== undefined ? { body } : {}) });
    const text = await res.text();
    let parsed: unknown;
    try {
      parsed = text === '' ? undefined : JSON.parse(text);
    } catch {
      throw new Error(`${method} ${path}: ${res.status} with a non-JSON body: ${text.slice(0, 200)}`);
    }
    return { status: res.status, headers: res.headers, body: parsed as T };
  }

  get<T = any>(path: string, token?: string) {
    return this.request<T>('GET', path, token === undefined ? {} : { token });
  }
  post<T = any>(path: string, body: unknown, token?: string) {
    return this.request<T>('POST', path, token === undefined ? { body } : { body, token });
  }
  patch<T = any>(path: string, body: unknown, token?: string) {
    return this.request<T>('PATCH', path, token === undefined ? { body } : { body, token });
  }
  delete<T = any>(path: string, token?: string) {
    return this.request<T>('DELETE', path, token === undefined ? {} : { token });
  }
}
