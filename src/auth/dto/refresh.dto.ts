import { ApiProperty } from '@nestjs/swagger';
import { IsString, MaxLength } from 'class-validator';

export class RefreshDto {
  /** The newest refresh token of the session (from the sign-in or the last refresh). */
  @ApiProperty({ maxLength: 100, example: 'Vt3kq0J6m9yQ2uH5xW8zB1cD4eF7gH0iJ3kL6mN9oP2' })
  @IsString()
  @MaxLength(100)
  refreshToken: string;
}
