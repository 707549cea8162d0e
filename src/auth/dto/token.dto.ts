import { ApiProperty } from '@nestjs/swagger';

/** What a sign-in and a refresh answer: a new access token and the session's next refresh token. */
export class TokenDto {
  /** Our JWT: send it as `Authorization: jwt <token>` on every other request. */
  @ApiProperty({ example: 'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiI0YzFiM2EzZSJ9.c2lnbmF0dXJl' })
  token: string;

  /**
   * Trade it at POST /auth/refresh for a new pair before `token` expires. It works once: keep only the
   * newest. Presenting a spent one again signs the session out (a stolen copy is useless then).
   */
  @ApiProperty({ pattern: '^[A-Za-z0-9_-]{43}$', example: 'Vt3kq0J6m9yQ2uH5xW8zB1cD4eF7gH0iJ3kL6mN9oP2' })
  refreshToken: string;

  /** Seconds until `token` expires. */
  @ApiProperty({ type: 'integer', minimum: 1, example: 3600 })
  expiresIn: number;
}
