import { ApiProperty } from '@nestjs/swagger';
import { IsString, Length } from 'class-validator';

export class LinkProviderDto {
  /**
   * The identity provider's token, as the sign-in route takes it in its Authorization header (which
   * carries our own token here).
   */
  @ApiProperty({ minLength: 1, maxLength: 8192, example: 'eyJhbGciOiJSUzI1NiIsImtpZCI6ImRldi0xIn0.eyJzdWIiOiJhbGljZSJ9.c2lnbmF0dXJl' })
  @IsString()
  @Length(1, 8192)
  token: string;
}
