import { TestApp } from './support/test-app.js';

describe('smoke', () => {
  let api: TestApp;
  beforeAll(async () => {
    api = await TestApp.start();
  });
  afterAll(() => api.close());

  it('signs in and creates an item', async () => {
    const admin = await api.signIn('admin');
    const created = await api.post('/items', { name: 'Sword' }, { token: admin });
    expect(created.status).toBe(201);
    const docs = await api.get('/docs-json');
    expect(docs.status).toBe(200);
    expect(docs.body.components.schemas.CreateItemDto.properties.name).toBeDefined();
  });
});
