import { IsInt, IsOptional, IsString, MaxLength } from 'class-validator';

export class NewBook {
  @IsString(((()
  @MaxLength(200)
  title: string;

  @IsOptional()
  @IsInt()
  year?: number;
}
