import { applyDecorators, Controller, Get, Head, HttpStatus, Req, Res } from '@nestjs/common';
import { ApiHeader, ApiOperation, ApiParam, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { type Caller, CurrentCaller, OptionalAuth } from '../common/auth.decorators.js';
import { ApiException, ErrorCode } from '../common/errors.js';
import { ApiErrors } from '../common/route.decorators.js';
import { MediaServingService } from './media-serving.service.js';
import { matchesEntityTag, rangeStillApplies, requestedRange } from './serving.js';
import { MEDIA_TYPE_NAME } from './upload-headers.js';

const FILE_PATH = ':type/:subtype/:sha256';

/** A request for a file: its path's parts (documented by ServingDocs) and the conditional headers. */
type FileRequest = FastifyRequest<{ Params: { type: string; subtype: string; sha256: string } }>;

const SERVED_HEADERS = {
  ETag: { required: true, description: 'The SHA-256 of the bytes, quoted.', schema: { type: 'string' } },
  'Cache-Control': {
    required: true,
    description: '`public, max-age=31536000, immutable` (`private, …` when MEDIA_PUBLIC=false): the bytes at this URL never change.',
    schema: { type: 'string' },
  },
  'Content-Length': { required: true, schema: { type: 'integer', minimum: 0 } },
  'Accept-Ranges': { schema: { type: 'string', example: 'bytes' } },
  'Content-Security-Policy': { schema: { type: 'string', example: "default-src 'none'; sandbox" } },
  'Content-Disposition': {
    description: '`attachment` for types a browser could run script in (HTML, SVG, XML, PDF, scripts).',
    schema: { type: 'string', example: 'attachment' },
  },
};
const BYTES = { '*/*': { schema: { type: 'string', format: 'binary' } } };

const ServingDocs = () =>
  applyDecorators(
    ApiParam({
      name: 'type',
      description: 'The top-level media type, `image` of `image/png`: with the subtype, the type the file was uploaded as.',
      schema: { type: 'string', pattern: MEDIA_TYPE_NAME.source, example: 'image' },
    }),
    ApiParam({
      name: 'subtype',
      description: 'The subtype, `png` of `image/png`.',
      schema: { type: 'string', pattern: MEDIA_TYPE_NAME.source, example: 'png' },
    }),
    ApiParam({
      name: 'sha256',
      description: 'The SHA-256 of the bytes, lower-case hex.',
      schema: { type: 'string', pattern: '^[0-9a-f]{64}$', example: '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08' },
    }),
    ApiHeader({ name: 'If-None-Match', required: false, description: 'The ETag of a copy the client holds: 304 when it is this file.' }),
    ApiHeader({ name: 'Range', required: false, description: 'One byte range, `bytes=0-1023`, `bytes=1024-` or `bytes=-1024`: 206.' }),
    ApiHeader({ name: 'If-Range', required: false, description: 'The ETag the Range was meant for; another: the whole file (200).' }),
    ApiResponse({ status: 200, description: 'The file.', headers: SERVED_HEADERS, content: BYTES }),
    ApiResponse({
      status: 206,
      description: 'The bytes of the Range.',
      headers: {
        ...SERVED_HEADERS,
        'Content-Range': { required: true, description: '`bytes <first>-<last>/<size>`', schema: { type: 'string' } },
      },
      content: BYTES,
    }),
    ApiResponse({
      status: 304,
      description: 'The copy the client holds (If-None-Match) is this file.',
      headers: { ETag: SERVED_HEADERS.ETag },
    }),
    ApiErrors(
      [400, 'VALIDATION_FAILED: the digest is not 64 lower-case hex characters, or the type is not a media type.'],
      [404, 'NOT_FOUND: no such file, none uploaded as this type, or a type that is not served.'],
    ),
    ApiResponse({
      status: 416,
      description: 'RANGE_NOT_SATISFIABLE: the Range starts past the end of the file (`Content-Range: bytes */<size>`).',
      headers: { 'Content-Range': { required: true, schema: { type: 'string' } } },
      content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorBody' } } },
    }),
  );

/**
 * Uploaded files, at the content-addressed URL their variant's `uri` holds. Public by default (game
 * clients and CDNs fetch icons without a token); MEDIA_PUBLIC=false serves them to signed-in users.
 */
@ApiTags('media files')
@OptionalAuth()
@Controller('media')
export class MediaController {
  constructor(private readonly files: MediaServingService) {}

  // Declared before the GET, so that Fastify does not derive a HEAD route from it that opens the file.
  @ApiOperation({ summary: 'The headers of an uploaded file', description: 'As GET, without the bytes.' })
  @ServingDocs()
  @Head(FILE_PATH)
  async head(@Req() request: FileRequest, @CurrentCaller() caller: Caller | undefined, @Res() reply: FastifyReply): Promise<void> {
    await this.serve(request, caller, reply, false);
  }

  @ApiOperation({
    summary: 'An uploaded file',
    description:
      'The bytes of a file uploaded to a media asset, at the `uri` of its variant. The URL is content-addressed: ' +
      '`ETag` is the digest, the answer may be cached for a year, `If-None-Match` answers 304 and `Range` 206. ' +
      'Never sniffed (`nosniff`), sandboxed (`Content-Security-Policy`), and served as an attachment when its ' +
      'type could run script in a browser. Public unless MEDIA_PUBLIC=false (then 401 without a token).',
  })
  @ServingDocs()
  @Get(FILE_PATH)
  async get(@Req() request: FileRequest, @CurrentCaller() caller: Caller | undefined, @Res() reply: FastifyReply): Promise<void> {
    await this.serve(request, caller, reply, true);
  }

  private async serve(request: FileRequest, caller: Caller | undefined, reply: FastifyReply, withBytes: boolean): Promise<void> {
    const { params, headers } = request;
    const file = await this.files.find(params.type, params.subtype, params.sha256, caller);
    const etag = file.headers.ETag;
    if (matchesEntityTag(headers['if-none-match'], etag)) {
      void reply.code(HttpStatus.NOT_MODIFIED).headers(file.headers).send();
      return;
    }
    const one = (header: string | string[] | undefined) => (typeof header === 'string' ? header : undefined);
    const range = rangeStillApplies(one(headers['if-range']), etag) ? requestedRange(one(headers.range), file.size) : undefined;
    if (range === 'unsatisfiable') {
      void reply.header('Content-Range', `bytes */${file.size}`);
      throw new ApiException(416, ErrorCode.RANGE_NOT_SATISFIABLE, `the file has ${file.size} bytes: no byte of the Range is in it`);
    }
    void reply.code(range ? HttpStatus.PARTIAL_CONTENT : HttpStatus.OK).headers(file.headers);
    if (range) void reply.header('Content-Range', `bytes ${range.start}-${range.end}/${file.size}`);
    void reply.header('Content-Length', String(range ? range.end - range.start + 1 : file.size));
    if (!withBytes) {
      void reply.send();
      return;
    }
    void reply.send(await this.files.open(file, range));
  }
}
