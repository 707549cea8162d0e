import { ApiProperty } from '@nestjs/swagger';
import { IsString, Matches } from 'class-validator';

export class DevTokenRequestDto {
  /** The subject to sign in as: `admin` is an admin (ADMIN_USERS' development default). */
  @ApiProperty({ pattern: '^[A-Za-z0-9._@:-]{1,128}$', example: 'admin' })
  @IsString()
  @Matches(/^[A-Za-z0-9._@:-]{1,128}$/, { message: 'subject must be 1 to 128 of A-Za-z0-9._@:-' })
  subject: string;
}

export class DevTokenDto {
  /** A token of the development provider: exchange it at GET /auth/idp1. */
  @ApiProperty({ example: 'eyJhbGciOiJSUzI1NiIsImtpZCI6IjFhMmIzYyJ9.eyJzdWIiOiJhZG1pbiJ9.c2lnbmF0dXJl' })
  token: string;
}
