// Calls to the console's JSON endpoints. Requests that change something carry the header the
// server requires of them (a cross-site page cannot send it without a preflight it never gets).
const BASE = 'api/';

export class ApiError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

async function call(method, path, body) {
  const headers = { Accept: 'application/json' };
  if (method !== 'GET') {
    headers['X-Brook-Console'] = '1';
    headers['Content-Type'] = 'application/json';
  }
  const response = await fetch(BASE + path, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
    credentials: 'same-origin',
  });
  let json = null;
  try {
    json = await response.json();
  } catch (e) {
    throw new ApiError(response.status, `${response.status} ${response.statusText}`);
  }
  if (!response.ok) {
    throw new ApiError(response.status, json && json.error ? json.error : response.statusText);
  }
  return json;
}

export function query(params) {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value !== undefined && value !== null && value !== '') {
      search.set(key, String(value));
    }
  }
  const text = search.toString();
  return text ? `?${text}` : '';
}

const seg = encodeURIComponent;

export const api = {
  overview: () => call('GET', 'overview'),
  throughput: () => call('GET', 'throughput'),
  topics: (params) => call('GET', 'topics' + query(params)),
  topic: (name, params) => call('GET', `topics/${seg(name)}` + query(params || {})),
  createTopic: (body) => call('POST', 'topics', body),
  deleteTopic: (name) => call('DELETE', `topics/${seg(name)}`),
  addPartitions: (name, count) => call('POST', `topics/${seg(name)}/partitions`, { count }),
  records: (name, params) => call('GET', `topics/${seg(name)}/records` + query(params)),
  produce: (name, body) => call('POST', `topics/${seg(name)}/records`, body),
  groups: (params) => call('GET', 'groups' + query(params)),
  group: (id, params) => call('GET', `groups/${seg(id)}` + query(params || {})),
  resetOffsets: (id, body) => call('POST', `groups/${seg(id)}/reset`, body),
  transactions: (params) => call('GET', 'transactions' + query(params || {})),
  producers: (topic) => call('GET', `topics/${seg(topic)}/producers`),
};
